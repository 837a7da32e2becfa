COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'	university
title FROM course WHERE instructor_id IS NULL	university
i.name, d.name FROM instructor AS i JOIN department AS d ON i.dept_id = d.dept_id ORDER BY i.salary DESC LIMIT 1	university
AVG(e.grade) FROM enrollment AS e JOIN course AS c ON e.course_id = c.course_id WHERE c.title = 'Databases' AND e.grade IS NOT NULL	university
SELECT d.name, COUNT(c.course_id) FROM department AS d LEFT JOIN course AS c ON c.dept_id = d.dept_id GROUP BY d.dept_id, d.name	university
select s.name FROM student AS s JOIN enrollment AS e ON s.student_id = e.student_id GROUP BY s.student_id, s.name HAVING COUNT(DISTINCT e.course_id) >= 4	university
name FROM instructor WHERE hire_date < '2015-01-01' AND salary > (SELECT AVG(salary) FROM instructor)	university
salary FROM instructor WHERE name = 'Brian Okafor'	university
