-- University: departments, instructors, courses, students and enrolments.
-- Grades are on a 0-100 scale; a NULL grade means the course is still running.
CREATE TABLE department (
  dept_id     INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  building    TEXT NOT NULL,
  budget      REAL NOT NULL -- yearly budget in euros
);
CREATE TABLE instructor (
  instructor_id INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  dept_id       INTEGER NOT NULL REFERENCES department(dept_id),
  salary        REAL NOT NULL, -- yearly salary in euros
  hire_date     TEXT NOT NULL  -- ISO date YYYY-MM-DD
);
CREATE TABLE course (
  course_id     TEXT PRIMARY KEY,
  title         TEXT NOT NULL,
  dept_id       INTEGER NOT NULL REFERENCES department(dept_id),
  credits       INTEGER NOT NULL,
  instructor_id INTEGER REFERENCES instructor(instructor_id) -- NULL: not yet assigned
);
CREATE TABLE student (
  student_id  INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  major_dept  INTEGER REFERENCES department(dept_id), -- NULL: undeclared
  enrol_year  INTEGER NOT NULL,
  birth_date  TEXT NOT NULL
);
CREATE TABLE enrollment (
  student_id  INTEGER NOT NULL REFERENCES student(student_id),
  course_id   TEXT NOT NULL REFERENCES course(course_id),
  semester    TEXT NOT NULL, -- e.g. 2023-fall
  grade       REAL,          -- NULL while the course is in progress
  PRIMARY KEY (student_id, course_id, semester)
);
INSERT INTO department VALUES
 (1,'Computer Science','Turing Hall',1250000.0),
 (2,'Mathematics','Noether Building',830000.0),
 (3,'Physics','Curie Lab',990000.0),
 (4,'History','Old Library',410000.0),
 (5,'Biology','Darwin Centre',760000.0);
INSERT INTO instructor VALUES
 (101,'Ada Lindqvist',1,98000.0,'2012-09-01'),
 (102,'Brian Okafor',1,87500.0,'2018-01-15'),
 (103,'Chen Wei',2,91000.0,'2009-08-20'),
 (104,'Dolores Haze',2,72000.0,'2021-02-01'),
 (105,'Emil Sorensen',3,95500.0,'2015-09-01'),
 (106,'Farah Nasser',4,64000.0,'2019-09-01'),
 (107,'Gustavo Ruiz',5,78000.0,'2016-03-10'),
 (108,'Hannah Becker',1,105000.0,'2007-10-01'),
 (109,'Ivan Petrov',3,69000.0,'2022-08-29');
INSERT INTO course VALUES
 ('CS101','Introduction to Programming',1,6,102),
 ('CS210','Data Structures',1,6,101),
 ('CS340','Databases',1,5,108),
 ('CS450','Machine Learning',1,5,101),
 ('MA101','Linear Algebra',2,6,103),
 ('MA220','Probability Theory',2,5,104),
 ('PH110','Classical Mechanics',3,6,105),
 ('PH330','Quantum Physics',3,5,109),
 ('HI150','Medieval Europe',4,4,106),
 ('BI120','Cell Biology',5,5,107),
 ('BI300','Genetics',5,5,NULL),
 ('CS499','Research Seminar',1,3,NULL);
INSERT INTO student VALUES
 (1,'Alice Moreau',1,2021,'2002-04-11'),
 (2,'Bram de Vries',1,2022,'2003-07-30'),
 (3,'Carla Mendes',2,2021,'2001-12-02'),
 (4,'Deniz Yilmaz',3,2023,'2004-02-19'),
 (5,'Elena Rossi',5,2022,'2003-10-05'),
 (6,'Felix Wagner',NULL,2023,'2005-01-23'),
 (7,'Grace Kim',1,2020,'2001-06-14'),
 (8,'Hugo Laurent',4,2021,'2002-09-09'),
 (9,'Isla Murray',2,2022,'2003-03-27'),
 (10,'Jonas Berg',3,2020,'2000-11-30'),
 (11,'Kofi Mensah',NULL,2024,'2005-08-08'),
 (12,'Lena Novak',5,2021,'2002-05-17');
INSERT INTO enrollment VALUES
 (1,'CS101','2021-fall',88.0),(1,'CS210','2022-spring',92.5),(1,'CS340','2023-fall',79.0),(1,'MA101','2021-fall',71.0),(1,'CS450','2024-spring',NULL),
 (2,'CS101','2022-fall',64.0),(2,'MA101','2022-fall',58.5),(2,'CS210','2023-spring',70.0),
 (3,'MA101','2021-fall',95.0),(3,'MA220','2022-spring',89.0),(3,'CS101','2021-fall',81.0),(3,'PH110','2022-fall',77.5),
 (4,'PH110','2023-fall',83.0),(4,'MA101','2023-fall',66.0),(4,'PH330','2024-spring',NULL),
 (5,'BI120','2022-fall',91.0),(5,'MA220','2023-spring',62.0),(5,'BI300','2024-spring',NULL),
 (6,'HI150','2023-fall',55.0),(6,'CS101','2023-fall',73.5),
 (7,'CS101','2020-fall',97.0),(7,'CS210','2021-spring',94.0),(7,'CS340','2022-fall',90.5),(7,'CS450','2023-spring',96.0),(7,'MA220','2021-fall',85.0),
 (8,'HI150','2021-fall',89.5),(8,'BI120','2022-spring',48.0),
 (9,'MA101','2022-fall',79.0),(9,'MA220','2023-spring',83.5),(9,'CS340','2024-spring',NULL),
 (10,'PH110','2020-fall',68.0),(10,'PH330','2022-spring',74.0),(10,'MA101','2020-fall',80.0),
 (11,'CS101','2024-fall',NULL),
 (12,'BI120','2021-fall',87.0),(12,'BI300','2023-fall',92.0),(12,'HI150','2022-spring',76.0);
