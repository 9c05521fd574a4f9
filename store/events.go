package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"tearcam/judge"
)

// Event kinds tearcam writes. The engine may record others (e.g. "throw", "check").
const (
	EventLastDitch = "last_ditch" // data: {"hit": bool, "skill": "..."}
	EventRoll      = "roll"
)

// Event is something that happened in a session besides a tear: a last ditch effort, a
// throw or a check from the engine.
type Event struct {
	ID        int64
	Session   string          // session name; "" means the player's most recent session
	Player    string          // "" for an event about the whole session
	Kind      string          // last_ditch, throw, check, roll, ...
	Data      json.RawMessage // the event's details, JSON ("{}" when empty)
	RunID     int64           // the run that recorded it, if any
	TearIndex int             // the manifest tear it comes from, 0 if none
	CreatedAt string          // RFC 3339, UTC
}

// RecordEvent stores an event and returns its id. The player (and session) must exist.
func (db *DB) RecordEvent(ctx context.Context, e Event) (int64, error) {
	if e.Kind == "" {
		return 0, errors.New("record event: no kind")
	}
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	if !json.Valid(data) {
		return 0, fmt.Errorf("record %s event: data is not JSON", e.Kind)
	}
	var sessionID int64
	var playerID sql.NullInt64
	if e.Player != "" {
		p, err := db.FindPlayer(ctx, e.Session, e.Player)
		if err != nil {
			return 0, fmt.Errorf("record %s event: %w", e.Kind, err)
		}
		sessionID, playerID = p.SessionID, sql.NullInt64{Int64: p.ID, Valid: true}
	} else {
		err := db.db.QueryRowContext(ctx, "SELECT id FROM sessions WHERE name = ?", e.Session).Scan(&sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("record %s event: session %s: %w", e.Kind, e.Session, ErrNotFound)
		} else if err != nil {
			return 0, fmt.Errorf("record %s event: %w", e.Kind, err)
		}
	}
	var tear sql.NullInt64
	if e.TearIndex > 0 {
		tear = sql.NullInt64{Int64: int64(e.TearIndex), Valid: true}
	}
	var id int64
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO events (session_id, player_id, run_id, tear_index, kind, data_json, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			sessionID, playerID, nullID(e.RunID), tear, e.Kind, string(data), db.now()).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("record %s event: %w", e.Kind, err)
	}
	return id, nil
}

// RecordRoll stores a throw or check result from the engine as an event of the given kind
// ("throw", "check"; "roll" when empty), roll being any JSON-encodable value.
func (db *DB) RecordRoll(ctx context.Context, session, player, kind string, roll any) (int64, error) {
	if kind == "" {
		kind = EventRoll
	}
	data, err := json.Marshal(roll)
	if err != nil {
		return 0, fmt.Errorf("record %s: %w", kind, err)
	}
	return db.RecordEvent(ctx, Event{Session: session, Player: player, Kind: kind, Data: data})
}

// Events lists a session's events in the order they were recorded; with a player name, only
// that player's.
func (db *DB) Events(ctx context.Context, session, player string) ([]Event, error) {
	var where string
	var args []any
	if player != "" {
		p, err := db.FindPlayer(ctx, session, player)
		if err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		where, args = "e.player_id = ?", []any{p.ID}
	} else {
		where, args = "s.name = ?", []any{session}
	}
	rows, err := db.db.QueryContext(ctx, `SELECT e.id, s.name, COALESCE(p.name, ''), e.kind, e.data_json, COALESCE(e.run_id, 0),
			COALESCE(e.tear_index, 0), e.created_at
		FROM events e JOIN sessions s ON s.id = e.session_id LEFT JOIN players p ON p.id = e.player_id
		WHERE `+where+" ORDER BY e.id", args...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var data string
		if err := rows.Scan(&e.ID, &e.Session, &e.Player, &e.Kind, &data, &e.RunID, &e.TearIndex, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	return out, rows.Err()
}

// PlayerState is where a player stands in a session: what the throw and check engine needs.
type PlayerState struct {
	judge.Standing        // skills with full letters left, tears owed, out and why
	Session        string // the session's name
	Tears          int    // tears ruled so far
}

// PlayerState reads a player's standing from the last current ruling (every declared skill
// with all its letters before any tear). A last_ditch event recorded outside the manifest
// (e.g. by the engine) puts the player out too. An empty session means the player's most
// recent session. A missing player is ErrNotFound.
func (db *DB) PlayerState(ctx context.Context, session, player string) (PlayerState, error) {
	p, err := db.FindPlayer(ctx, session, player)
	if err != nil {
		return PlayerState{}, fmt.Errorf("player state: %w", err)
	}
	rs, err := db.Rulings(ctx, p.ID)
	if err != nil {
		return PlayerState{}, fmt.Errorf("player state: %w", err)
	}
	pr := judge.PlayerRulings{Name: p.Name}
	for _, s := range p.Skills {
		pr.Sheet.Skills = append(pr.Sheet.Skills, judge.SkillResult{Name: s, Letters: judge.Letters(s)})
	}
	for _, r := range rs {
		pr.Tears = append(pr.Tears, r.Ruling)
	}
	st := judge.StandingOf(pr)
	if !st.Out {
		var n int
		if err := db.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM events WHERE player_id = ? AND kind = ? AND tear_index IS NULL",
			p.ID, EventLastDitch).Scan(&n); err != nil {
			return PlayerState{}, fmt.Errorf("player state: %w", err)
		}
		if n > 0 {
			st.Out, st.OutReason = true, judge.OutLastDitch
			for i := range st.Skills {
				st.Skills[i].Available = false
			}
		}
	}
	var name string
	if err := db.db.QueryRowContext(ctx, "SELECT name FROM sessions WHERE id = ?", p.SessionID).Scan(&name); err != nil {
		return PlayerState{}, fmt.Errorf("player state: %w", err)
	}
	return PlayerState{Standing: st, Session: name, Tears: len(rs)}, nil
}
