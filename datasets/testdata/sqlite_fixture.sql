-- Fixture for the SQLite engine, introspection and renderer tests
-- (engine_sqlite_test.go, schema_test.go, render_test.go). Small, but with
-- every case the engine must handle: composite and missing primary keys,
-- foreign keys with and without a target column, DATE/BOOLEAN declared
-- types (which go-sqlite3 converts lossily), an untyped column holding
-- mixed storage classes, invalid UTF-8 text, BLOBs, long text and a
-- 1000-row table for a 10^12-row cartesian product.
CREATE TABLE stadium (
  Stadium_ID INT PRIMARY KEY,
  Location TEXT,
  Name TEXT NOT NULL,
  Capacity INT,
  Average REAL
);
CREATE TABLE singer (
  Singer_ID INTEGER PRIMARY KEY,
  Name VARCHAR(40) NOT NULL,
  Country TEXT,
  Birthday DATE,
  Is_male BOOLEAN,
  Bio TEXT,
  Photo BLOB,
  Misc
);
CREATE TABLE concert (
  concert_ID INT PRIMARY KEY,
  concert_Name TEXT,
  Stadium_ID INT REFERENCES stadium(Stadium_ID),
  Year TEXT
);
CREATE TABLE singer_in_concert (
  concert_ID INT,
  Singer_ID INT,
  PRIMARY KEY (Singer_ID, concert_ID),
  FOREIGN KEY (concert_ID) REFERENCES concert(concert_ID),
  FOREIGN KEY (Singer_ID) REFERENCES singer
);
CREATE TABLE numbers (n INTEGER NOT NULL);

INSERT INTO stadium VALUES
  (1, 'Raith Rovers', 'Stark''s Park', 10104, 2106.0),
  (2, 'Ayr United', 'Somerset Park', 11998, 1477.0),
  (3, 'East Fife', 'Bayview Stadium', 2000, 864.0);
INSERT INTO singer VALUES
  (1, 'Joe Sharp', 'Netherlands', '1980-04-12', 1, 'A singer whose biography is far longer than twenty characters.', x'00ff10', 42),
  (2, 'Timbaland', 'United States', '1972-03-10', 1, 'Producer; rapper', NULL, 'forty-two'),
  (3, 'Justin Brown', 'France', 'not a date', 2, NULL, x'', 4.25),
  (4, 'Rose White', 'France', NULL, 0, 'Line one
line two', NULL, x'cafe'),
  (5, CAST(x'4265f87461' AS TEXT), 'Germany', 19800412, NULL, NULL, NULL, NULL);
INSERT INTO concert VALUES
  (1, 'Auditions', 1, '2014'),
  (2, 'Super bootcamp', 2, '2014'),
  (3, 'Home Visits', 1, '2015');
INSERT INTO singer_in_concert VALUES (1, 2), (1, 3), (2, 1), (3, 5);
INSERT INTO numbers
  WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000)
  SELECT x FROM c;
