package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tearcam/judge"
)

// Session is one manifest's session.
type Session struct {
	ID             int64
	Name           string // see SessionName
	ManifestSHA256 string
	Paper          string
	TemplateJSON   string
	CreatedAt      string
	UpdatedAt      string
}

// PutSession creates the session named s.Name or updates its manifest hash, paper and
// template; it returns the session's id.
func (db *DB) PutSession(ctx context.Context, s Session) (int64, error) {
	var id int64
	now := db.now()
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO sessions (name, manifest_sha256, paper, template_json, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET manifest_sha256 = excluded.manifest_sha256, paper = excluded.paper,
				template_json = excluded.template_json, updated_at = excluded.updated_at
			RETURNING id`, s.Name, s.ManifestSHA256, s.Paper, s.TemplateJSON, now, now).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("put session %s: %w", s.Name, err)
	}
	return id, nil
}

// Sessions lists every session, most recently updated first.
func (db *DB) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, name, manifest_sha256, paper, template_json, created_at, updated_at
		FROM sessions ORDER BY updated_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var s Session
		if err := rows.Scan(&s.ID, &s.Name, &s.ManifestSHA256, &s.Paper, &s.TemplateJSON, &s.CreatedAt, &s.UpdatedAt); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Run is one invocation that wrote to a session (an audit, a watch), with the versions that
// made its rulings.
type Run struct {
	ID        int64
	SessionID int64
	Command   string
	Versions  Versions
	StartedAt string
	Status    string // running | done | failed; a killed run stays running
}

// StartRun records the start of a run on a session.
func (db *DB) StartRun(ctx context.Context, sessionID int64, command string, v Versions) (int64, error) {
	var id int64
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO runs (session_id, command, tearcam_version, opencv_version, tesseract_version, started_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, sessionID, command, v.Tearcam, v.OpenCV, v.Tesseract, db.now()).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("start run: %w", err)
	}
	return id, nil
}

// FinishRun records the end of a run: status "done" or "failed".
func (db *DB) FinishRun(ctx context.Context, runID int64, status string) error {
	_, err := db.db.ExecContext(ctx, "UPDATE runs SET finished_at = ?, status = ? WHERE id = ?", db.now(), status, runID)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	return nil
}

// Runs lists a session's runs, oldest first.
func (db *DB) Runs(ctx context.Context, sessionID int64) ([]Run, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, session_id, command, tearcam_version, opencv_version, tesseract_version, started_at, status
		FROM runs WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.ID, &r.SessionID, &r.Command, &r.Versions.Tearcam, &r.Versions.OpenCV, &r.Versions.Tesseract, &r.StartedAt, &r.Status); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Player is one player of a session as declared in its manifest.
type Player struct {
	ID        int64
	SessionID int64
	Name      string
	Position  int      // 1-based manifest order
	Skills    []string // declared, in order
	Sheet     Photo    // the untorn sheet's photo (zero in watch sessions)
	Tears     int      // tears in the manifest
}

// Photo is a photo's content hash and its path as the manifest names it.
type Photo struct {
	SHA256 string
	Path   string
}

// PutPlayer creates or updates a player of a session with its declared skills (replacing
// the previous declaration), sheet photo and tear count; it returns the player's id.
func (db *DB) PutPlayer(ctx context.Context, p Player) (int64, error) {
	var id int64
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		photo, err := putPhoto(ctx, tx, p.Sheet)
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO players (session_id, name, position, sheet_photo_id, tears)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (session_id, name) DO UPDATE SET position = excluded.position,
				sheet_photo_id = excluded.sheet_photo_id, tears = excluded.tears
			RETURNING id`, p.SessionID, p.Name, p.Position, photo, p.Tears).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM skills WHERE player_id = ?", id); err != nil {
			return err
		}
		for i, s := range p.Skills {
			if _, err := tx.ExecContext(ctx, "INSERT INTO skills (player_id, position, name, letters) VALUES (?, ?, ?, ?)",
				id, i+1, s, judge.Letters(s)); err != nil {
				return err
			}
		}
		// Rulings past the manifest's last tear are no longer current.
		_, err = tx.ExecContext(ctx, "UPDATE rulings SET current = 0 WHERE player_id = ? AND tear_index > ?", id, p.Tears)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("put player %s: %w", p.Name, err)
	}
	return id, nil
}

// putPhoto records a photo and returns its id, or NULL for a photo without hash and path.
func putPhoto(ctx context.Context, tx *sql.Tx, p Photo) (sql.NullInt64, error) {
	if p.SHA256 == "" && p.Path == "" {
		return sql.NullInt64{}, nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO photos (sha256, path) VALUES (?, ?)
		ON CONFLICT (sha256, path) DO UPDATE SET path = excluded.path RETURNING id`, p.SHA256, p.Path).Scan(&id)
	if err != nil {
		return sql.NullInt64{}, fmt.Errorf("record photo %s: %w", p.Path, err)
	}
	return sql.NullInt64{Int64: id, Valid: true}, nil
}

// FindPlayer looks a player up by session and player name, as a GM types it: the exact name
// first, else the name in any case (ASCII letters; a manifest never holds two players whose
// names differ only in case). An empty session name means the most recently updated session
// that has a player of that name.
func (db *DB) FindPlayer(ctx context.Context, session, name string) (Player, error) {
	var p Player
	var sha, path sql.NullString
	q := `SELECT p.id, p.session_id, p.name, p.position, p.tears, ph.sha256, ph.path
		FROM players p JOIN sessions s ON s.id = p.session_id LEFT JOIN photos ph ON ph.id = p.sheet_photo_id
		WHERE (p.name = ? OR lower(p.name) = lower(?)) AND (? = '' OR s.name = ?)
		ORDER BY p.name = ? DESC, s.updated_at DESC, s.id DESC LIMIT 1`
	err := db.db.QueryRowContext(ctx, q, name, name, session, session, name).Scan(&p.ID, &p.SessionID, &p.Name, &p.Position, &p.Tears, &sha, &path)
	if errors.Is(err, sql.ErrNoRows) {
		if session == "" {
			return p, fmt.Errorf("player %q: %w%s", name, ErrNotFound, db.playersIn(ctx, session))
		}
		return p, fmt.Errorf("player %q in session %s: %w%s", name, session, ErrNotFound, db.playersIn(ctx, session))
	}
	if err != nil {
		return p, fmt.Errorf("find player %q: %w", name, err)
	}
	p.Sheet = Photo{SHA256: sha.String, Path: path.String}
	rows, err := db.db.QueryContext(ctx, "SELECT name FROM skills WHERE player_id = ? ORDER BY position", p.ID)
	if err != nil {
		return p, fmt.Errorf("find player %q: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return p, fmt.Errorf("find player %q: %w", name, err)
		}
		p.Skills = append(p.Skills, s)
	}
	return p, rows.Err()
}

// playersIn names the players the database holds (in session, or in any session when it is
// ""), for an error on a player not found: " (players: Ann, Breta)", " (no players)", or ""
// when they cannot be read. At most 10 are named.
func (db *DB) playersIn(ctx context.Context, session string) string {
	rows, err := db.db.QueryContext(ctx, `SELECT DISTINCT p.name FROM players p JOIN sessions s ON s.id = p.session_id
		WHERE ? = '' OR s.name = ? ORDER BY p.name LIMIT 11`, session, session)
	if err != nil {
		return ""
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return ""
		}
		names = append(names, strconv.Quote(n))
	}
	if rows.Err() != nil {
		return ""
	}
	switch {
	case len(names) == 0:
		return " (no players)"
	case len(names) > 10:
		names = append(names[:10], "...")
	}
	return " (players: " + strings.Join(names, ", ") + ")"
}

// Layout is the fresh sheet's letter layout found for a player, keyed by its inputs.
type Layout struct {
	PlayerID int64
	Key      string // the caller's hash of the inputs the layout depends on
	Sheet    Photo
	JSON     []byte // []judge.SkillLayout (or, in discovery mode, what the caller stores)
	RunID    int64
}

// SaveLayout records a fresh sheet's layout.
func (db *DB) SaveLayout(ctx context.Context, l Layout) error {
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		photo, err := putPhoto(ctx, tx, l.Sheet)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO layouts (player_id, input_key, sheet_photo_id, layout_json, run_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (player_id, input_key) DO UPDATE SET layout_json = excluded.layout_json, run_id = excluded.run_id`,
			l.PlayerID, l.Key, photo, string(l.JSON), nullID(l.RunID), db.now())
		return err
	})
	if err != nil {
		return fmt.Errorf("save layout: %w", err)
	}
	return nil
}

// FindLayout returns the layout saved for a player under key, or ErrNotFound.
func (db *DB) FindLayout(ctx context.Context, playerID int64, key string) (Layout, error) {
	return db.findLayout(ctx, key, "player_id = ?", playerID)
}

// findLayout returns the most recent layout stored under key by a player that where (a
// condition on the layouts table, with args) selects, or ErrNotFound.
func (db *DB) findLayout(ctx context.Context, key, where string, args ...any) (Layout, error) {
	l := Layout{Key: key}
	var js string
	var run sql.NullInt64
	err := db.db.QueryRowContext(ctx, `SELECT player_id, layout_json, run_id FROM layouts WHERE input_key = ? AND `+where+`
		ORDER BY id DESC LIMIT 1`, append([]any{key}, args...)...).Scan(&l.PlayerID, &js, &run)
	if errors.Is(err, sql.ErrNoRows) {
		return l, fmt.Errorf("layout: %w", ErrNotFound)
	}
	if err != nil {
		return l, fmt.Errorf("find layout: %w", err)
	}
	l.JSON, l.RunID = []byte(js), run.Int64
	return l, nil
}

// Ruling is one stored ruling on a tear.
type Ruling struct {
	ID          int64
	PlayerID    int64
	Index       int    // 1-based tear index in the manifest
	Key         string // the caller's hash of every input the ruling depends on
	Photo       Photo  // zero for last_ditch
	Ruling      judge.TearRuling
	Measurement []byte // the caller's encoding of the measurement the ruling was made from
	RunID       int64  // the run that computed it (its versions made it)
	Annotated   []byte // the annotated image (JPEG), if any; read back by FindRuling only
}

// SaveRuling records a ruling as the player's current ruling on tear r.Index, durably: when
// it returns the ruling is committed. A ruling already stored under the same key is made
// current again instead (keeping its measurement and the run that computed it; the ruling
// is replaced, as the judge re-rules a re-used measurement: a GM's ruling given or changed
// since is recorded so, with its verdict in the gm_verdict column). A last_ditch ruling also
// records a last_ditch event.
func (db *DB) SaveRuling(ctx context.Context, r Ruling) (int64, error) {
	js, err := json.Marshal(r.Ruling)
	if err != nil {
		return 0, fmt.Errorf("save ruling %d: %w", r.Index, err)
	}
	var id int64
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		photo, err := putPhoto(ctx, tx, r.Photo)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE rulings SET current = 0 WHERE player_id = ? AND tear_index = ? AND input_key <> ?",
			r.PlayerID, r.Index, r.Key); err != nil {
			return err
		}
		gm := ""
		if r.Ruling.GMRuling != nil {
			gm = string(r.Ruling.GMRuling.Verdict)
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO rulings (player_id, tear_index, input_key, current, photo_id, kind, skill, verdict,
				gm_verdict, ruling_json, measurement_json, run_id, created_at)
			VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (player_id, tear_index, input_key) DO UPDATE SET current = 1, kind = excluded.kind,
				skill = excluded.skill, verdict = excluded.verdict, gm_verdict = excluded.gm_verdict, ruling_json = excluded.ruling_json
			RETURNING id`, r.PlayerID, r.Index, r.Key, photo, string(r.Ruling.Kind), r.Ruling.Skill, string(r.Ruling.Verdict),
			gm, string(js), string(r.Measurement), nullID(r.RunID), db.now()).Scan(&id); err != nil {
			return err
		}
		if len(r.Annotated) > 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO ruling_images (ruling_id, annotated) VALUES (?, ?)
				ON CONFLICT (ruling_id) DO UPDATE SET annotated = excluded.annotated`, id, r.Annotated); err != nil {
				return err
			}
		}
		if r.Ruling.Kind == judge.KindLastDitch {
			data, _ := json.Marshal(map[string]any{"hit": r.Ruling.Hit != nil && *r.Ruling.Hit, "skill": r.Ruling.Skill})
			_, err = tx.ExecContext(ctx, `INSERT INTO events (session_id, player_id, run_id, tear_index, kind, data_json, created_at)
				SELECT session_id, id, ?, ?, 'last_ditch', ?, ? FROM players WHERE id = ?
				ON CONFLICT (player_id, tear_index, kind) WHERE tear_index IS NOT NULL DO UPDATE SET data_json = excluded.data_json`,
				nullID(r.RunID), r.Index, string(data), db.now(), r.PlayerID)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("save ruling %d: %w", r.Index, err)
	}
	return id, nil
}

// FindRuling returns the ruling stored for a player's tear under key, current or not, or
// ErrNotFound.
func (db *DB) FindRuling(ctx context.Context, playerID int64, index int, key string) (Ruling, error) {
	rs, err := db.rulings(ctx, "r.player_id = ? AND r.tear_index = ? AND r.input_key = ?", playerID, index, key)
	if err != nil {
		return Ruling{}, err
	}
	if len(rs) == 0 {
		return Ruling{}, fmt.Errorf("ruling %d: %w", index, ErrNotFound)
	}
	return db.withImage(ctx, rs[0])
}

// withImage is r with its annotated image read.
func (db *DB) withImage(ctx context.Context, r Ruling) (Ruling, error) {
	err := db.db.QueryRowContext(ctx, "SELECT annotated FROM ruling_images WHERE ruling_id = ?", r.ID).Scan(&r.Annotated)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Ruling{}, fmt.Errorf("ruling %d: annotated image: %w", r.Index, err)
	}
	return r, nil
}

// sameInputsElsewhere selects the other players (not the player ?) of the same name and
// sheet photo path, in any session: the same player under another manifest (a copy of it
// under a new name). Their measurements of the same inputs are the player's own.
const sameInputsElsewhere = `SELECT o.id FROM players o JOIN players me ON me.id = ? AND o.name = me.name AND o.id <> me.id
	LEFT JOIN photos os ON os.id = o.sheet_photo_id LEFT JOIN photos ms ON ms.id = me.sheet_photo_id
	WHERE COALESCE(os.path, '') = COALESCE(ms.path, '')`

// FindRulingElsewhere returns the most recent ruling stored under key for tear index by the
// same player in another session (same name and sheet photo path, PutPlayer's record of
// playerID), whose tear photo has the path photoPath: the measurement a copy of the manifest
// under another name made of the same inputs (key names them: photos' SHA-256, skills,
// versions, ...; the paths and the name, which measurements' texts may quote, must match
// too). ErrNotFound when there is none.
func (db *DB) FindRulingElsewhere(ctx context.Context, playerID int64, index int, key, photoPath string) (Ruling, error) {
	rs, err := db.rulings(ctx, `r.tear_index = ? AND r.input_key = ? AND COALESCE(ph.path, '') = ?
		AND r.player_id IN (`+sameInputsElsewhere+`) ORDER BY r.id DESC LIMIT 1`, index, key, photoPath, playerID)
	if err != nil {
		return Ruling{}, err
	}
	if len(rs) == 0 {
		return Ruling{}, fmt.Errorf("ruling %d: %w", index, ErrNotFound)
	}
	return db.withImage(ctx, rs[0])
}

// FindLayoutElsewhere returns the most recent layout stored under key by the same player in
// another session (as FindRulingElsewhere), or ErrNotFound. Its PlayerID is the other one's.
func (db *DB) FindLayoutElsewhere(ctx context.Context, playerID int64, key string) (Layout, error) {
	return db.findLayout(ctx, key, "player_id IN ("+sameInputsElsewhere+")", playerID)
}

// Rulings returns a player's current rulings in tear order (up to the manifest's tear count).
func (db *DB) Rulings(ctx context.Context, playerID int64) ([]Ruling, error) {
	return db.rulings(ctx, "r.player_id = ? AND r.current = 1 ORDER BY r.tear_index", playerID)
}

func (db *DB) rulings(ctx context.Context, where string, args ...any) ([]Ruling, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT r.id, r.player_id, r.tear_index, r.input_key, ph.sha256, ph.path,
			r.ruling_json, r.measurement_json, r.run_id
		FROM rulings r LEFT JOIN photos ph ON ph.id = r.photo_id WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read rulings: %w", err)
	}
	defer rows.Close()
	var out []Ruling
	for rows.Next() {
		var r Ruling
		var sha, path sql.NullString
		var js, ms string
		var run sql.NullInt64
		if err := rows.Scan(&r.ID, &r.PlayerID, &r.Index, &r.Key, &sha, &path, &js, &ms, &run); err != nil {
			return nil, fmt.Errorf("read rulings: %w", err)
		}
		if err := json.Unmarshal([]byte(js), &r.Ruling); err != nil {
			return nil, fmt.Errorf("read ruling %d: %w", r.Index, err)
		}
		r.Photo = Photo{SHA256: sha.String, Path: path.String}
		r.Measurement, r.RunID = []byte(ms), run.Int64
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunVersions returns the versions of the run that made a ruling.
func (db *DB) RunVersions(ctx context.Context, runID int64) (Versions, error) {
	var v Versions
	err := db.db.QueryRowContext(ctx, "SELECT tearcam_version, opencv_version, tesseract_version FROM runs WHERE id = ?", runID).
		Scan(&v.Tearcam, &v.OpenCV, &v.Tesseract)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("run %d: %w", runID, err)
	}
	return v, nil
}

func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }
