// Package engine is the throw and check engine (pure Go): Throws, the rock-paper-scissors
// contests of seeds/001_e185c1f5ae3d5d51.txt (Stones, Scrolls, Swords; Series Length, Focus,
// Throw Winner, Draw Break, Outcome Number), with an optional commit-reveal mode for play at
// a distance; and 3d6 checks per seeds/003_2e8bc38e38094fd5.txt (partial and trained skills,
// levels 2 to 6, stacking bonuses and penalties, target scores, opposed checks, critical
// success and failure, attacks against armour or a defence check, wounds and hit
// locations).
//
// Randomness is injected (Rand): CryptoRand by default, SeededRand for reproducible play and
// tests. Whether a character may throw or check with a skill at all is the judge's business
// (judge.Standing.CanUse): a skill with no full letter left, or a character who is out,
// cannot.
package engine
