-- Weather network: stations, sensors and hourly readings.
-- Temperatures in degrees Celsius, wind speed in metres per second,
-- pressure in hectopascals, precipitation in millimetres, elevation in metres.
-- A NULL reading value means the sensor reported a fault for that hour.
CREATE TABLE station (
  station_id  TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  country     TEXT NOT NULL,
  latitude    REAL NOT NULL,
  longitude   REAL NOT NULL,
  elevation_m REAL NOT NULL,
  opened      TEXT NOT NULL -- ISO date
);
CREATE TABLE sensor (
  sensor_id   INTEGER PRIMARY KEY,
  station_id  TEXT NOT NULL REFERENCES station(station_id),
  kind        TEXT NOT NULL, -- 'temperature', 'wind_speed', 'pressure', 'precipitation'
  unit        TEXT NOT NULL, -- 'degC', 'm/s', 'hPa', 'mm'
  installed   TEXT NOT NULL
);
CREATE TABLE reading (
  sensor_id   INTEGER NOT NULL REFERENCES sensor(sensor_id),
  taken_at    TEXT NOT NULL, -- ISO timestamp 'YYYY-MM-DD HH:MM'
  value       REAL,          -- NULL: sensor fault
  PRIMARY KEY (sensor_id, taken_at)
);
INSERT INTO station VALUES
 ('ZUG','Zugspitze Summit','Germany',47.421,10.985,2956.0,'1900-07-19'),
 ('HEL','Helsinki Kaisaniemi','Finland',60.175,24.944,4.0,'1844-01-01'),
 ('LIS','Lisbon Geofisico','Portugal',38.719,-9.150,77.0,'1854-10-01'),
 ('REY','Reykjavik','Iceland',64.128,-21.904,52.0,'1920-01-01'),
 ('SNB','Sonnblick Observatory','Austria',47.054,12.958,3106.0,'1886-09-01');
INSERT INTO sensor VALUES
 (1,'ZUG','temperature','degC','2019-05-01'),
 (2,'ZUG','wind_speed','m/s','2019-05-01'),
 (3,'HEL','temperature','degC','2020-03-12'),
 (4,'HEL','precipitation','mm','2020-03-12'),
 (5,'LIS','temperature','degC','2018-11-20'),
 (6,'LIS','pressure','hPa','2018-11-20'),
 (7,'REY','temperature','degC','2021-06-01'),
 (8,'REY','wind_speed','m/s','2021-06-01'),
 (9,'SNB','temperature','degC','2017-08-15'),
 (10,'SNB','wind_speed','m/s','2017-08-15');
INSERT INTO reading VALUES
 (1,'2024-01-15 06:00',-14.2),(1,'2024-01-15 12:00',-9.8),(1,'2024-01-15 18:00',-12.5),(1,'2024-07-15 12:00',6.4),
 (2,'2024-01-15 06:00',18.5),(2,'2024-01-15 12:00',22.1),(2,'2024-01-15 18:00',NULL),(2,'2024-07-15 12:00',7.2),
 (3,'2024-01-15 06:00',-8.1),(3,'2024-01-15 12:00',-5.3),(3,'2024-01-15 18:00',-7.9),(3,'2024-07-15 12:00',21.7),
 (4,'2024-01-15 06:00',0.0),(4,'2024-01-15 12:00',1.2),(4,'2024-01-15 18:00',3.4),(4,'2024-07-15 12:00',0.0),
 (5,'2024-01-15 06:00',9.4),(5,'2024-01-15 12:00',15.2),(5,'2024-01-15 18:00',12.0),(5,'2024-07-15 12:00',29.8),
 (6,'2024-01-15 06:00',1021.3),(6,'2024-01-15 12:00',1019.8),(6,'2024-01-15 18:00',1018.2),(6,'2024-07-15 12:00',1012.6),
 (7,'2024-01-15 06:00',-2.6),(7,'2024-01-15 12:00',NULL),(7,'2024-01-15 18:00',-1.1),(7,'2024-07-15 12:00',12.3),
 (8,'2024-01-15 06:00',14.0),(8,'2024-01-15 12:00',16.8),(8,'2024-01-15 18:00',11.9),(8,'2024-07-15 12:00',5.5),
 (9,'2024-01-15 06:00',-16.9),(9,'2024-01-15 12:00',-13.4),(9,'2024-01-15 18:00',-15.0),(9,'2024-07-15 12:00',3.1),
 (10,'2024-01-15 06:00',24.7),(10,'2024-01-15 12:00',27.3),(10,'2024-01-15 18:00',21.0),(10,'2024-07-15 12:00',9.9);
