-- Fixture database for the EX scorer tests (built into t.TempDir()).
CREATE TABLE singer (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  age INTEGER,
  country TEXT,
  rating REAL
);
INSERT INTO singer VALUES (1, 'Joe', 52, 'Netherlands', 4.5);
INSERT INTO singer VALUES (2, 'Ann', 41, 'France', 3.0);
INSERT INTO singer VALUES (3, 'Tim', 29, 'France', NULL);
INSERT INTO singer VALUES (4, 'Liu', 41, 'China', 2.25);
-- One name holding bytes that are not valid UTF-8 ('Ba', 0xFF, 'd').
INSERT INTO singer VALUES (5, CAST(X'4261FF64' AS TEXT), 35, 'Norway', 1.0);
CREATE TABLE concert (
  concert_id INTEGER PRIMARY KEY,
  singer_id INTEGER REFERENCES singer(id),
  year INTEGER
);
INSERT INTO concert VALUES (1, 1, 2014), (2, 2, 2014), (3, 2, 2015), (4, 4, 2015);
