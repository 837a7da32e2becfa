-- Online shop: customers, products, orders and order lines.
-- Prices are in euros excluding VAT; weights in grams; dates are ISO.
CREATE TABLE customer (
  customer_id INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  city        TEXT NOT NULL,
  country     TEXT NOT NULL,
  signup_date TEXT NOT NULL,
  email       TEXT -- NULL: no e-mail on file
);
CREATE TABLE product (
  product_id  INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  category    TEXT NOT NULL,
  unit_price  REAL NOT NULL, -- euros, excluding VAT
  weight_g    INTEGER NOT NULL,
  discontinued INTEGER NOT NULL DEFAULT 0 -- 1 = no longer sold
);
CREATE TABLE orders (
  order_id    INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(customer_id),
  order_date  TEXT NOT NULL,
  ship_date   TEXT, -- NULL: not shipped yet
  status      TEXT NOT NULL -- 'delivered', 'shipped', 'pending', 'cancelled'
);
CREATE TABLE order_item (
  order_id    INTEGER NOT NULL REFERENCES orders(order_id),
  product_id  INTEGER NOT NULL REFERENCES product(product_id),
  quantity    INTEGER NOT NULL,
  discount    REAL NOT NULL DEFAULT 0, -- fraction, 0.1 = 10 % off
  PRIMARY KEY (order_id, product_id)
);
INSERT INTO customer VALUES
 (1,'Marta Kowalska','Krakow','Poland','2021-03-14','marta.k@example.pl'),
 (2,'Tom Becker','Hamburg','Germany','2020-11-02','tbecker@example.de'),
 (3,'Sofia Almeida','Porto','Portugal','2022-06-21',NULL),
 (4,'Lucas Martin','Lyon','France','2021-09-30','lucas.martin@example.fr'),
 (5,'Nina Schulz','Berlin','Germany','2023-01-08','nina@example.de'),
 (6,'Pieter Jansen','Utrecht','Netherlands','2022-02-17',NULL),
 (7,'Giulia Conti','Turin','Italy','2020-07-05','giulia.c@example.it'),
 (8,'Oskar Lind','Uppsala','Sweden','2023-05-29','oskar.lind@example.se'),
 (9,'Anna Weber','Munich','Germany','2021-12-12','a.weber@example.de'),
 (10,'Jean Dupont','Paris','France','2024-02-03',NULL);
INSERT INTO product VALUES
 (1,'Espresso Beans 1kg','coffee',18.90,1000,0),
 (2,'Decaf Beans 500g','coffee',11.50,500,0),
 (3,'Pour-over Kettle','equipment',42.00,950,0),
 (4,'Ceramic Dripper','equipment',24.50,480,0),
 (5,'Paper Filters (100)','accessories',4.20,150,0),
 (6,'Hand Grinder','equipment',79.00,720,0),
 (7,'Milk Frother','equipment',29.90,310,1),
 (8,'Travel Mug','accessories',15.00,260,0),
 (9,'Green Tea 250g','tea',9.80,250,0),
 (10,'Chai Spice Mix','tea',7.40,120,1),
 (11,'Digital Scale','equipment',34.00,400,0),
 (12,'Cold Brew Bottle','accessories',21.00,640,0),
 (13,'Barista Apron','accessories',26.50,330,0),
 (14,'Oolong Tea 100g','tea',12.90,100,0);
INSERT INTO orders VALUES
 (1001,1,'2023-01-15','2023-01-17','delivered'),
 (1002,2,'2023-01-20','2023-01-21','delivered'),
 (1003,4,'2023-02-03','2023-02-06','delivered'),
 (1004,7,'2023-02-14','2023-02-15','delivered'),
 (1005,2,'2023-03-02','2023-03-03','delivered'),
 (1006,5,'2023-03-19',NULL,'cancelled'),
 (1007,9,'2023-04-08','2023-04-11','delivered'),
 (1008,3,'2023-05-22','2023-05-26','delivered'),
 (1009,1,'2023-06-30','2023-07-01','delivered'),
 (1010,6,'2023-08-11','2023-08-14','delivered'),
 (1011,7,'2023-09-05','2023-09-06','delivered'),
 (1012,8,'2023-10-17','2023-10-20','delivered'),
 (1013,2,'2023-11-24','2023-11-25','delivered'),
 (1014,4,'2023-12-09','2023-12-12','delivered'),
 (1015,9,'2024-01-13','2024-01-15','delivered'),
 (1016,5,'2024-02-02','2024-02-05','shipped'),
 (1017,10,'2024-02-20',NULL,'pending'),
 (1018,1,'2024-03-01',NULL,'pending'),
 (1019,7,'2024-03-03','2024-03-04','shipped'),
 (1020,2,'2024-03-05',NULL,'cancelled');
INSERT INTO order_item VALUES
 (1001,1,2,0),(1001,5,1,0),
 (1002,6,1,0.1),(1002,1,1,0),
 (1003,3,1,0),(1003,4,1,0),(1003,5,2,0),
 (1004,9,3,0),(1004,10,2,0),
 (1005,1,3,0.05),(1005,8,1,0),
 (1006,7,1,0),
 (1007,11,1,0),(1007,2,2,0),
 (1008,12,1,0),(1008,1,1,0),
 (1009,1,2,0),(1009,6,1,0.15),
 (1010,4,1,0),(1010,5,3,0),(1010,9,1,0),
 (1011,3,1,0.1),(1011,8,2,0),
 (1012,1,1,0),(1012,11,1,0),
 (1013,1,4,0.1),(1013,2,2,0.1),
 (1014,7,1,0),(1014,9,2,0),
 (1015,6,1,0),(1015,5,1,0),
 (1016,12,2,0),
 (1017,3,1,0),(1017,1,1,0),
 (1018,2,1,0),
 (1019,9,4,0.05),(1019,8,1,0),
 (1020,11,1,0);
