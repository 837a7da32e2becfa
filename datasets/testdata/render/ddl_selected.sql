CREATE TABLE `singer` ( -- people who sing
	`Singer_ID` INTEGER,
	`Name` VARCHAR(40), -- full name of the singer, as printed on posters | Value Examples: `Joe Sharp`, `Timbaland`
	`Birthday` DATE,
	PRIMARY KEY (`Singer_ID`)
);

CREATE TABLE `singer_in_concert` (
	`concert_ID` INT,
	`Singer_ID` INT,
	PRIMARY KEY (`Singer_ID`, `concert_ID`),
	FOREIGN KEY (`Singer_ID`) REFERENCES `singer`(`Singer_ID`)
);
