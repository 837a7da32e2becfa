SELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'	university
SELECT title FROM course WHERE instructor_id IS NULL	university
SELECT i.name, d.name FROM instructor AS i JOIN department AS d ON i.dept_id = d.dept_id ORDER BY i.salary DESC LIMIT 1	university
SELECT AVG(e.grade) FROM enrollment AS e JOIN course AS c ON e.course_id = c.course_id WHERE c.title = 'Databases' AND e.grade IS NOT NULL	university
SELECT s.name FROM student AS s JOIN enrollment AS e ON s.student_id = e.student_id GROUP BY s.student_id, s.name HAVING COUNT(DISTINCT e.course_id) >= 4	university
SELECT name FROM instructor WHERE hire_date < '2015-01-01' AND salary > (SELECT AVG(salary) FROM instructor)	university
SELECT salary / 12.0 FROM instructor WHERE name = 'Brian Okafor'	university
SELECT SUM(c.credits) FROM enrollment AS e JOIN course AS c ON e.course_id = c.course_id JOIN student AS s ON s.student_id = e.student_id WHERE s.name = 'Alice Moreau' AND e.grade >= 60	university
SELECT d.name, d.budget / COUNT(i.instructor_id) AS per_instructor FROM department AS d JOIN instructor AS i ON i.dept_id = d.dept_id GROUP BY d.dept_id, d.name, d.budget ORDER BY per_instructor DESC LIMIT 1	university
SELECT enrol_year - CAST(strftime('%Y', birth_date) AS INTEGER) - (CASE WHEN strftime('%m-%d', birth_date) > '09-01' THEN 1 ELSE 0 END) FROM student WHERE name = 'Jonas Berg'	university
SELECT s.name FROM student AS s WHERE s.student_id IN (SELECT student_id FROM enrollment WHERE grade IS NOT NULL) AND s.student_id NOT IN (SELECT student_id FROM enrollment WHERE grade < 70) ORDER BY s.name	university
SELECT semester, COUNT(*) FROM enrollment WHERE grade IS NULL GROUP BY semester	university
SELECT c.title FROM course AS c JOIN department AS d ON c.dept_id = d.dept_id JOIN enrollment AS e ON e.course_id = c.course_id WHERE d.name = 'Physics' GROUP BY c.course_id, c.title HAVING AVG(e.grade) > 75	university
SELECT COUNT(*) FROM customer WHERE country = 'Germany'	shop
SELECT name, city FROM customer WHERE email IS NULL	shop
SELECT name, unit_price FROM product WHERE discontinued = 0 ORDER BY unit_price DESC LIMIT 1	shop
SELECT SUM(oi.quantity * p.unit_price * (1 - oi.discount)) FROM order_item AS oi JOIN product AS p ON oi.product_id = p.product_id WHERE oi.order_id = 1013	shop
SELECT SUM(oi.quantity) FROM order_item AS oi JOIN orders AS o ON oi.order_id = o.order_id JOIN product AS p ON p.product_id = oi.product_id WHERE p.name = 'Espresso Beans 1kg' AND o.status = 'delivered' AND o.order_date LIKE '2023%'	shop
SELECT p.category, SUM(oi.quantity * p.unit_price * (1 - oi.discount)) AS revenue FROM order_item AS oi JOIN product AS p ON oi.product_id = p.product_id JOIN orders AS o ON o.order_id = oi.order_id WHERE o.status = 'delivered' GROUP BY p.category ORDER BY revenue DESC LIMIT 1	shop
SELECT c.name, COUNT(o.order_id) FROM customer AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.name HAVING COUNT(o.order_id) > 2	shop
SELECT AVG(julianday(ship_date) - julianday(order_date)) FROM orders WHERE ship_date IS NOT NULL	shop
SELECT SUM(oi.quantity * p.weight_g) / 1000.0 FROM order_item AS oi JOIN product AS p ON oi.product_id = p.product_id WHERE oi.order_id = 1003	shop
SELECT name FROM product WHERE product_id NOT IN (SELECT product_id FROM order_item)	shop
SELECT c.name FROM customer AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.name, c.signup_date HAVING strftime('%Y', MIN(o.order_date)) = strftime('%Y', c.signup_date)	shop
SELECT strftime('%Y-%m', order_date) AS month, COUNT(*) FROM orders WHERE order_date LIKE '2023%' GROUP BY month ORDER BY month	shop
SELECT 100.0 * SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) / COUNT(*) FROM orders	shop
SELECT c.name FROM customer AS c JOIN orders AS o ON o.customer_id = c.customer_id JOIN order_item AS oi ON oi.order_id = o.order_id JOIN product AS p ON p.product_id = oi.product_id WHERE o.status = 'delivered' GROUP BY c.customer_id, c.name ORDER BY SUM(oi.quantity * p.unit_price * (1 - oi.discount)) DESC LIMIT 1	shop
SELECT name, unit_price FROM product WHERE category = 'equipment' AND unit_price > (SELECT AVG(unit_price) FROM product WHERE category = 'equipment') ORDER BY unit_price ASC	shop
SELECT unit_price * 1.19 FROM product WHERE name = 'Hand Grinder'	shop
SELECT name, elevation_m FROM station ORDER BY elevation_m DESC LIMIT 1	weather
SELECT COUNT(*) FROM reading WHERE value IS NULL	weather
SELECT AVG(r.value) * 9.0 / 5 + 32 FROM reading AS r JOIN sensor AS se ON r.sensor_id = se.sensor_id JOIN station AS st ON st.station_id = se.station_id WHERE st.name = 'Helsinki Kaisaniemi' AND se.kind = 'temperature' AND substr(r.taken_at, 1, 10) = '2024-01-15'	weather
SELECT MAX(r.value) * 3.6 FROM reading AS r JOIN sensor AS se ON r.sensor_id = se.sensor_id JOIN station AS st ON st.station_id = se.station_id WHERE st.name = 'Sonnblick Observatory' AND se.kind = 'wind_speed'	weather
SELECT st.name, MIN(r.value) FROM station AS st JOIN sensor AS se ON se.station_id = st.station_id JOIN reading AS r ON r.sensor_id = se.sensor_id WHERE se.kind = 'temperature' GROUP BY st.station_id, st.name	weather
SELECT st.country, COUNT(DISTINCT se.kind) FROM station AS st JOIN sensor AS se ON se.station_id = st.station_id GROUP BY st.country	weather
SELECT MAX(r.value) - MIN(r.value) FROM reading AS r JOIN sensor AS se ON r.sensor_id = se.sensor_id WHERE se.station_id = 'ZUG' AND se.kind = 'temperature' AND r.taken_at LIKE '2024-01%'	weather
SELECT st.name FROM station AS st JOIN sensor AS se ON se.station_id = st.station_id JOIN reading AS r ON r.sensor_id = se.sensor_id WHERE se.kind = 'temperature' AND r.taken_at LIKE '2024-07% 12:00' AND r.value > (SELECT AVG(r2.value) FROM reading AS r2 JOIN sensor AS s2 ON s2.sensor_id = r2.sensor_id WHERE s2.kind = 'temperature' AND r2.taken_at LIKE '2024-07% 12:00')	weather
SELECT CAST(strftime('%Y', se.installed) AS INTEGER) - CAST(strftime('%Y', st.opened) AS INTEGER) FROM station AS st JOIN sensor AS se ON se.station_id = st.station_id WHERE st.name = 'Lisbon Geofisico' AND se.kind = 'pressure'	weather
SELECT elevation_m * 3.28084 FROM station WHERE name = 'Reykjavik'	weather
SELECT DISTINCT se.sensor_id, se.kind, st.name FROM sensor AS se JOIN station AS st ON st.station_id = se.station_id JOIN reading AS r ON r.sensor_id = se.sensor_id WHERE r.value IS NULL	weather
SELECT name, opened FROM station WHERE latitude > 50 ORDER BY opened	weather
