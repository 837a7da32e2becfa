CREATE TABLE `stadium` (
	`Stadium_ID` INT,
	`Location` TEXT, -- Value Examples: `Raith Rovers`, `Ayr United`, `East Fife`
	`Name` TEXT, -- Value Examples: `Stark's Park`, `Somerset Park`, `Bayview Stadium`
	`Capacity` INT,
	`Average` REAL,
	PRIMARY KEY (`Stadium_ID`)
);

CREATE TABLE `singer` (
	`Singer_ID` INTEGER,
	`Name` VARCHAR(40), -- Value Examples: `Joe Sharp`, `Timbaland`, `Justin Brown`
	`Country` TEXT, -- Value Examples: `Netherlands`, `United States`, `France`
	`Birthday` DATE,
	`Is_male` BOOLEAN,
	`Bio` TEXT, -- Value Examples: `Producer; rapper`, `Line one line two`
	`Photo` BLOB,
	`Misc`,
	PRIMARY KEY (`Singer_ID`)
);

CREATE TABLE `concert` (
	`concert_ID` INT,
	`concert_Name` TEXT, -- Value Examples: `Auditions`, `Super bootcamp`, `Home Visits`
	`Stadium_ID` INT,
	`Year` TEXT, -- Value Examples: `2014`, `2015`
	PRIMARY KEY (`concert_ID`),
	FOREIGN KEY (`Stadium_ID`) REFERENCES `stadium`(`Stadium_ID`)
);

CREATE TABLE `singer_in_concert` (
	`concert_ID` INT,
	`Singer_ID` INT,
	PRIMARY KEY (`Singer_ID`, `concert_ID`),
	FOREIGN KEY (`concert_ID`) REFERENCES `concert`(`concert_ID`),
	FOREIGN KEY (`Singer_ID`) REFERENCES `singer`(`Singer_ID`)
);

CREATE TABLE `numbers` (
	`n` INTEGER
);
