-- tearcam session database, first schema.

CREATE TABLE sessions (
	id              INTEGER PRIMARY KEY,
	name            TEXT NOT NULL UNIQUE,   -- the manifest's path relative to the database (or absolute)
	manifest_sha256 TEXT NOT NULL DEFAULT '',
	paper           TEXT NOT NULL DEFAULT '',
	template_json   TEXT NOT NULL DEFAULT '',
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL
);

CREATE TABLE runs (
	id                INTEGER PRIMARY KEY,
	session_id        INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	command           TEXT NOT NULL DEFAULT '',
	tearcam_version   TEXT NOT NULL,
	opencv_version    TEXT NOT NULL,
	tesseract_version TEXT NOT NULL,
	started_at        TEXT NOT NULL,
	finished_at       TEXT,
	status            TEXT NOT NULL DEFAULT 'running'  -- running | done | failed (a killed run stays running)
);

CREATE TABLE photos (
	id     INTEGER PRIMARY KEY,
	sha256 TEXT NOT NULL,
	path   TEXT NOT NULL,   -- as the manifest names it, relative to the manifest's folder
	UNIQUE (sha256, path)
);

CREATE TABLE players (
	id             INTEGER PRIMARY KEY,
	session_id     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	name           TEXT NOT NULL,
	position       INTEGER NOT NULL,        -- 1-based order in the manifest
	sheet_photo_id INTEGER REFERENCES photos(id),
	tears          INTEGER NOT NULL DEFAULT 0, -- tears in the manifest
	UNIQUE (session_id, name)
);

CREATE TABLE skills (
	player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,  -- 1-based declaration order
	name      TEXT NOT NULL,
	letters   INTEGER NOT NULL,
	PRIMARY KEY (player_id, position)
);

CREATE TABLE layouts (
	id             INTEGER PRIMARY KEY,
	player_id      INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
	input_key      TEXT NOT NULL,
	sheet_photo_id INTEGER REFERENCES photos(id),
	layout_json    TEXT NOT NULL,  -- []judge.SkillLayout, or the words found in discovery mode
	run_id         INTEGER REFERENCES runs(id),
	created_at     TEXT NOT NULL,
	UNIQUE (player_id, input_key)
);

CREATE TABLE rulings (
	id               INTEGER PRIMARY KEY,
	player_id        INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
	tear_index       INTEGER NOT NULL,  -- 1-based, manifest order
	input_key        TEXT NOT NULL,
	current          INTEGER NOT NULL DEFAULT 1,
	photo_id         INTEGER REFERENCES photos(id),
	kind             TEXT NOT NULL,
	skill            TEXT NOT NULL,
	verdict          TEXT NOT NULL,
	ruling_json      TEXT NOT NULL,  -- judge.TearRuling
	measurement_json TEXT NOT NULL DEFAULT '',
	run_id           INTEGER REFERENCES runs(id),
	created_at       TEXT NOT NULL,
	UNIQUE (player_id, tear_index, input_key)
);
CREATE INDEX rulings_current ON rulings (player_id, current, tear_index);

CREATE TABLE events (
	id         INTEGER PRIMARY KEY,
	session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	player_id  INTEGER REFERENCES players(id) ON DELETE CASCADE,
	run_id     INTEGER REFERENCES runs(id),
	tear_index INTEGER,           -- set for events that come from a manifest tear (last_ditch)
	kind       TEXT NOT NULL,     -- last_ditch | throw | check | roll | ...
	data_json  TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX events_from_tear ON events (player_id, tear_index, kind) WHERE tear_index IS NOT NULL;
