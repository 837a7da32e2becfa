package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Release names, for each benchmark family, the release its recorded
// checksums (releaseSums) stand for, and how far that is verified. The
// facts come from shared/datasets/<benchmark>/SOURCE.md.
var Release = map[string]string{
	"spider": "Spider 1.0 dev, official spider_data.zip (dev.json revised 2020-08-03), via third-party copies; " +
		"the database sums equal the fingerprints of the official zip published by an independent evaluation report (no official checksum exists)",
	"bird": "BIRD dev, a later revision than 2023-05 (most likely dev_20240627; inferred, not verified against an official checksum); " +
		"the three databases equal the fingerprints of the official dev.zip reported by an independent evaluation run",
	"bird-minidev": "BIRD mini-dev (bird-bench/mini_dev, via the fork soonbee207/bird_mini_dev@7044c12; which revision is not verified); " +
		"databases as for bird",
	"bird-dev-2023-05": "BIRD dev, initial release of May 2023 (AlibabaResearch/DAMO-ConvAI@03898f5, later deleted from the repository); databases as for bird",
	"archer":           "Archer, sig4kg/archer-bench@6f503e8 dataset/{en,zh}_data.zip; dev databases are Spider's (see spider)",
	"logiccat":         "LogicCat, Ffunkytao/LogicCat@8218cef (public 2,369-question files) and @cb580e8 (MySQL dumps, full gold list, miniset)",
	"logiccat-sqlite":  "LogicCat, Ffunkytao/LogicCat@8218cef (public 2,369-question files) and @cb580e8 (SQLite files, full gold list, miniset)",
}

// releaseSums are the SHA-256 sums of the files of each benchmark family's
// release (Release), relative to the --data directory, recorded from the
// shared copies described in SOURCE.md. Spider's wta_1.sqlite is absent
// there; its sum is the official zip's fingerprint (SOURCE.md). BIRD's
// eight missing databases are not listed: SOURCE.md records only prefixes
// of their sums.
var releaseSums = map[string][][2]string{
	"spider": {
		{"dev.json", "30d64a3fccde493226df79687aed9e4a1c0129525baf44f29c0573d914d758a4"},
		{"dev_gold.sql", "0b14e99791ebc59741608e68d1d73a6dbb75556c435faa3f4dce816b90c96661"},
		{"tables.json", "61bb20aa401f03164e2d7f3b16509b7b5f79cc9c943ca7bd159046df1159e2ed"},
		{"database/battle_death/battle_death.sqlite", "12569f4493a9655639c4ea86ba4bd8a4ea6411e1b8ae0e1fdf3d6a995344265d"},
		{"database/car_1/car_1.sqlite", "9d851e396e02997a1de073ae982fe1e4b1769fdffce2fac6e325857a3a938709"},
		{"database/concert_singer/concert_singer.sqlite", "4fa1ba5ab4577e895271088b1dc44aa94be88e25a54293317a67584112ef059d"},
		{"database/course_teach/course_teach.sqlite", "da45fcdde64ac2b9330146506b7653ad4417489d8e496e509045e1b02245d793"},
		{"database/cre_Doc_Template_Mgt/cre_Doc_Template_Mgt.sqlite", "9c3fdd03d8795ecde60aae782ce50c4fb1d6c03de1401fcdd6dc177342a53df5"},
		{"database/dog_kennels/dog_kennels.sqlite", "ea5fbc6cf6aaf500371c5c121c339d9802ba6f5fbecd948a5274c0b487a9f486"},
		{"database/employee_hire_evaluation/employee_hire_evaluation.sqlite", "760fec5cc872ef0cdf99242614f05c93dbd00d422ac9da87ea64fcf555be7373"},
		{"database/flight_2/flight_2.sqlite", "db777ba6488ae2b515cb138d71ff23c4533e5fd0355854648a1102faff3fb7af"},
		{"database/museum_visit/museum_visit.sqlite", "3217aee38d8e3661d374bf025591b7164a1179c568ef5d20f3c338035fc6e1dd"},
		{"database/network_1/network_1.sqlite", "bec92cd9a68d6f23469a0df246429299f44caaf75eab12275784e0bb7d0aa9ca"},
		{"database/orchestra/orchestra.sqlite", "13b64af1cf6fcbd34953a44f951b2bf79bedc000b344549212dac1a9345e2f86"},
		{"database/pets_1/pets_1.sqlite", "8ffe0ea9b3b034ca8860a2f18300a98c7583ce2522ea195726a04803f675e5bb"},
		{"database/poker_player/poker_player.sqlite", "63fffd7b68524f07a742a74b74b95a4ba178e6419f3574b9ee78b8dda1df46ba"},
		{"database/real_estate_properties/real_estate_properties.sqlite", "5d0bd83afa93a843e68f892d8430fe625d7ed2508aae00a341926b0b5b478a29"},
		{"database/singer/singer.sqlite", "5c1b72755d148c294b26d7b479307e8799b93485ac918720f953e2ab84d59a0a"},
		{"database/student_transcripts_tracking/student_transcripts_tracking.sqlite", "5a1f4928a1fd36f6edb31c4f054203b2e2fab6b18e5951c4f5633628f82a8e56"},
		{"database/tvshow/tvshow.sqlite", "1212c2e75cf1dcf3aeb4055331a85298b073d8a613ead77975b13bd3346b9fc4"},
		{"database/voter_1/voter_1.sqlite", "815bf1611b8a32f649d292a6138562f1761a0c10cb256e20f6561199cff31531"},
		{"database/world_1/world_1.sqlite", "17b986695f16786d58d66f85e49dba87bdfe72953207ab9b1b49da9d2301ef65"},
		{"database/wta_1/wta_1.sqlite", "8f20747456d7748674b4f05432f3de96446ced95b8bd5a6fd01284f6c28f727c"},
	},
	"bird": {
		{"dev/dev.json", "630272f2b1c44d8cef2c3b246f623355cf0bbc1e832c81061df895530dfc2f06"},
		{"dev/dev_tables.json", "35e7f73f2bc3a3bc4def9466215f7617ff8b37e9b2837f03539a42c9e9c69d97"},
		{"dev_databases/student_club/student_club.sqlite", "eb89bcfe97eefa386a27904ec5aa15159811a7eac894ec659a36e48fa9f76b77"},
		{"dev_databases/superhero/superhero.sqlite", "75e94a2c3236ee3bb2c01fb97a1c4b4c1c269bcefd4eab1d04be323d2d0825b1"},
		{"dev_databases/toxicology/toxicology.sqlite", "f5fa7f21af1ad878ff8fef1b0582b8cb2d7ed63dbac65ff16d2ba05667650c5b"},
	},
	"bird-minidev": {
		{"mini_dev/mini_dev_sqlite.json", "be02a202933e694d08127f502b1c224276c67758391dbe6f6bc81565bf7a90d8"},
		{"mini_dev/mini_dev_sqlite_gold.sql", "c6388cb5dcad6c58e4f59e20f53a3d82e0ad6c8c601b1441deaefe4e84ebbc42"},
		{"dev_databases/student_club/student_club.sqlite", "eb89bcfe97eefa386a27904ec5aa15159811a7eac894ec659a36e48fa9f76b77"},
		{"dev_databases/superhero/superhero.sqlite", "75e94a2c3236ee3bb2c01fb97a1c4b4c1c269bcefd4eab1d04be323d2d0825b1"},
		{"dev_databases/toxicology/toxicology.sqlite", "f5fa7f21af1ad878ff8fef1b0582b8cb2d7ed63dbac65ff16d2ba05667650c5b"},
	},
	"bird-dev-2023-05": {
		{"dev_2023-05/dev.json", "c0dc0d829c7d7af6c43a934d5644942578dc578f69ca0c8ca11f31754ca3cf43"},
		{"dev_2023-05/dev_gold.sql", "147c87c8207db1d6e04fbf27527dfc1a3b23fe7c5f6ee8a836695213ab89b83a"},
		{"dev_databases/student_club/student_club.sqlite", "eb89bcfe97eefa386a27904ec5aa15159811a7eac894ec659a36e48fa9f76b77"},
		{"dev_databases/superhero/superhero.sqlite", "75e94a2c3236ee3bb2c01fb97a1c4b4c1c269bcefd4eab1d04be323d2d0825b1"},
		{"dev_databases/toxicology/toxicology.sqlite", "f5fa7f21af1ad878ff8fef1b0582b8cb2d7ed63dbac65ff16d2ba05667650c5b"},
	},
	"archer": {
		{"en/dev.json", "4a28656f71822b5898a4cc64d4a9eb0fe65fd7c162a6e8760d87d1ff7586ff08"},
		{"zh/dev.json", "57bc92395260cff17cab5ca5afa24f479640959d594ca2044144ac92cdc56ac2"},
		{"en/train.json", "e7eab20e16c89531e418b4bcfa8574bc0f70065deac6d927ba723fd4cb554bb1"},
		{"zh/train.json", "024307736e786afd83ad18150683ae2aba3106b731fe18e7648ae86694a0b6d4"},
		{"../spider/database/concert_singer/concert_singer.sqlite", "4fa1ba5ab4577e895271088b1dc44aa94be88e25a54293317a67584112ef059d"},
		{"../spider/database/world_1/world_1.sqlite", "17b986695f16786d58d66f85e49dba87bdfe72953207ab9b1b49da9d2301ef65"},
	},
	"logiccat": {
		{"mysql/cop_cot_test_2369.json", "a2310956974692dc3e97ad47b5ee59d4fa081643a46f869069e4602d3f6ab3ac"},
		{"mysql/gold2369.sql", "38d90a2832f7661fe06fc911915d3b6878fa1636f8383bae36267b935809f00a"},
		{"mysql/table.json", "5e28cc38149ff7522c7c1db8e70043d8ee718bef4433f3f6833bb054444bd0d7"},
		{"mysql/data_full_gold.sql", "5ef37bd6a4d5ebccffb546a3bbcfc1802566325bfcfc95a18f0d380aa7abf6cb"},
		{"miniset/mysql_mini_500.json", "2397152d02e39b4f54e856e5f893dbabe26f3dfaf33986f4951a0a615bad4da0"},
		{"miniset/mysql_mini_500.sql", "d72dcd7cdfc3e5f7485812aa0836605bd5b7be66fcec2e7569ce364456ab6be8"},
		{"mysql/database/AirCraft.sql", "a4831dd64cc705a8ecb782f4c79635e0387556b9d202fb29d490b46507c7bd0e"},
		{"mysql/database/AlarmSystem.sql", "23a668c987cdb6ace672edeb53840e1d4f408dac5812c197784163c8858a80e8"},
		{"mysql/database/Concert.sql", "821a5f5c66cfc884f55af32338d2083467e2c9c6e1e5ef82d81b740dda378b1e"},
		{"mysql/database/DataCollector.sql", "3f8cfbca2484f13c6d40027dd13a91c346e4b269889ac913749c5a3eba828cc2"},
		{"mysql/database/ECommerce.sql", "c33d9a1722d0684733413b3754015ee27381c467787b7ea4cede2846f7bda96e"},
		{"mysql/database/EnergyManagementDB.sql", "99fd8620982d3b8ee4f541b2b67a7736981b1f6cededc6c9eedc6d8f5f5f82f4"},
		{"mysql/database/EquipmentManagementDB.sql", "3e7d4bffcb311c5ebaa667fae21294a1a15bde40139a531a7d5b469c7d4b2316"},
		{"mysql/database/PhysicsLabDB.sql", "a3f068636f56e10daaf86e8f86bee6775fe9f11e73e826b6a104edd50d0eef21"},
		{"mysql/database/Population.sql", "692f5c9155ab3179048c9279fccb036ea4cf2e75ad7ac2583226903740d7c37a"},
		{"mysql/database/RainGauge.sql", "4404c2f6fc9d11b1f2cbd8ab64c60b1cc5e70355e3e9f62d9b7499f834591cc9"},
		{"mysql/database/SmartHomeDB.sql", "4b09a025462f56c20217928ad02e9416ff6826143aedf3fcc48e296fbbcd142b"},
		{"mysql/database/WaterQualityMonitor.sql", "44237bb0b7308ca4b8291fb73d1aa5b794b12601afc9dab671ff761142224380"},
		{"mysql/database/air_conditioner.sql", "2aaa84110b481f841087a9a8a6e28af46c94671c01439e14e2862c5f8eee8b1c"},
		{"mysql/database/architect.sql", "287652c05385d56456886cd209fe340950f1dd266f562681eca7978c6affca19"},
		{"mysql/database/bike.sql", "3b70bdfd59bd02706b08f3a1be87b3f6f24fa70416ac4e81cc1a5a575968b946"},
		{"mysql/database/car.sql", "60459001ad449a52d990058cff85ff8172c20a3c5bdd40ef90b3c32a08c27ac9"},
		{"mysql/database/car_engine.sql", "9ff8833382d174bdbdb8b57ef653c11b781bf1e04e45906410e3a49be14771dc"},
		{"mysql/database/computer.sql", "81ec36dce4f6b2efae843ebafda93bc0f6d7a0995d67bce2b60548d5eeb67e7a"},
		{"mysql/database/contract.sql", "269a5d83052b6e050c8187b186f34fc69c6af2c8426acc4fc412be05360e9e39"},
		{"mysql/database/earphone.sql", "1d0f88fb2d4cc173f03f22aa7209dc7914ef1e0a3defc8e644719b931d40f2e0"},
		{"mysql/database/electric_scooter.sql", "f561e4e2a6155f1b67d160237b648c4c16e5838ac50ec34be778f20f6625824d"},
		{"mysql/database/exercise_club.sql", "6c1216a2e90c5dd91a6c86ccec7ed116d619cd856c6ff218b36913c15972d105"},
		{"mysql/database/gas.sql", "0a62998ac3b4460fcdf1e4c5b0d6b6a1bc5e58351de053b1f5da6227dda5f987"},
		{"mysql/database/generators.sql", "6b82d1bc3fbe9db492e6ca16d52bb0812d9a61daaf6e326a5f3fa508d064b018"},
		{"mysql/database/hospital.sql", "bc42504fb5e919215766e25fecc6fb39db2b39260b3ad2e84f5ae670682dfa90"},
		{"mysql/database/ipad.sql", "9be21c81fd9553715749e01ca301b4bfc28e3958e0b47cc7ad62781207b176cb"},
		{"mysql/database/lawnmower.sql", "8ef01b7146c5a6321a6d0bc17b198e4df39b71856362b49ff10f7c4b7c7a9e59"},
		{"mysql/database/mouse.sql", "a4b915e26ebc41f549e729b28d4a2a3ae92714143ae6fd5924d41d100ecfc509"},
		{"mysql/database/new_energy_vehicles.sql", "672f66e4e8ace6a3d28482319c26557ec4bbdb4158b043b772f6a733c09b577d"},
		{"mysql/database/phone.sql", "0945b73347844c7af80585e559b036fbd63042bc2eb4d3222ad718c4c538fd36"},
		{"mysql/database/phone_market.sql", "a32722a3189f75a52ed971284ff4cc0cae62dd0502d809df392d9e0969aa23b6"},
		{"mysql/database/printer.sql", "764d1c360716f5951e8f5d6601fe7e339d1f967360461bab6c5e2cbaf234c1d4"},
		{"mysql/database/railway.sql", "580a1e52115fe0699ed327659c7736c50e427a8fc01924504495936193022231"},
		{"mysql/database/railway_station.sql", "95dc859ced05de6f891f23fb817bb722c517b31cf52db1386b03fd8d7d773f64"},
		{"mysql/database/rice_cooker.sql", "b04631d4b0bc2be301c6b584a54f6ce4a0454abf75e9944a6a31e19889f383ef"},
		{"mysql/database/roller_coaster.sql", "060f8380f0f2e1d1cc712f47215c9cc64cb458e505e3a1fc3a94eff96fd2f5a9"},
		{"mysql/database/school.sql", "03e628af9263f3c6d846119cf8991379aaf4910c54928d1fee8e8744ffb3d4c3"},
		{"mysql/database/ship.sql", "ef822be4a848a8871b5e1374f844d85137ea71aa6d1d1924dd59bfa8e1a4c2a8"},
		{"mysql/database/submarine.sql", "32b3ebb76f8dab2191a41c1f107e549f821339d2e9dbf738c1c1338bce9f4095"},
		{"mysql/database/television.sql", "e04a5bca264a4c72081a2e5077ed538ebaec884b2bd442fcd0004ba40a60e35b"},
		{"mysql/database/watch.sql", "c9b32eee82bd9759214bbff939e9832ea3e13dd6e5f32488f59e3f417c701273"},
		{"mysql/database/waterPump.sql", "46e35ade18b8883cb42a149fd5218b39af82dcefe3d4a0f77fd9eeff4ac9afeb"},
		{"mysql/database/water_heater.sql", "c5d7b06e56622bb9a71dd80ca93686473b5936c83ee571e6512749747b02390e"},
		{"mysql/database/wind_turbine.sql", "4fc733afe4fcbbe7a3b887c0c859c6f949768a128287cc51ba0218d6a538984e"},
		{"mysql/database/yacht.sql", "5e7b5ed1a0a834413bfc64a8468d78764d3859dc0ef759b8b63efd7cf0738f0e"},
	},
	"logiccat-sqlite": {
		{"sqlite/cop_cot_test_2369.json", "0109e7d8f9eb2f2017cfa4c0db1f632482df23c9c69c552d83a3e471b2820f00"},
		{"sqlite/gold2369.sql", "8944cdd0be0104ec1fc4eebbaad32323306b3203eeccbfb08f6f056687fb436c"},
		{"sqlite/table.json", "0c875c555fe61e37ecf3b10f23443a6ac48382973ec13370ef0adf1acdfabd55"},
		{"sqlite/data_full_gold.sql", "1f3cc045d6b64ace40486b70ac789247a3f16adb47bf70bf3853af21b80297df"},
		{"miniset/sqlite_mini_500.json", "1170b2767a4f5601e2ef63b15654784d9c3e644ef226a2464c56623e5997704f"},
		{"miniset/sqlite_mini_500.sql", "468e1fd064802c262979deb9b77fdaae40a2b431fa3762198a77de0c6bf1880d"},
		{"sqlite/database/DataCollector.db", "feb5ab420b7b228e72663f911577d02ec22527fa67d3c9114c9aa6115d6caf82"},
		{"sqlite/database/ECommerce.db", "ceb16556265a37c40907022df7780f8b477c4c78da53ffb6e1918ac16698ae5f"},
		{"sqlite/database/EnergyManagementDB.db", "9aadca8b383c064b7e8fdb2ffb89a4527fd31d18db60b92866092675b51bd77c"},
		{"sqlite/database/EquipmentManagementDB.db", "562af00a26e8a31712d099d9221a204aa3b06c840e27cced311b67ffb58e5415"},
		{"sqlite/database/PhysicsLabDB.db", "0552eb5dc6504dde1b4c0a687c1cf59a1aab4aa449a70962fc82815a0525df80"},
		{"sqlite/database/Population.sqlite", "17b986695f16786d58d66f85e49dba87bdfe72953207ab9b1b49da9d2301ef65"},
		{"sqlite/database/RainGauge.db", "ec426b5a976fc2444b23fd634889583c7ca4a1195dcd8da2caac3237320361bc"},
		{"sqlite/database/SmartHomeDB.db", "9921ca76118210c1b29fb84fb7c7cd3f83611a14deec8e40d3f889244e6a4946"},
		{"sqlite/database/WaterQualityMonitor.db", "c265c480cd739ee1bf10d4f416f81b087684801d09148cce2e393d7304d86747"},
		{"sqlite/database/air_conditioner.db", "0906cb340871e851f1b9e915887e324c94e9064da95c4259b42072e351177c86"},
		{"sqlite/database/aircraft.db", "95e3f4c4fe255f885d31e6c71c27981fa83a3dd4c598634b84a9d580df3fd00b"},
		{"sqlite/database/alarmsystem.db", "e0c2a404b868e030d8119679dd3f68473815e06a2ef9bca3431a87d409e85981"},
		{"sqlite/database/architect.db", "b05bbcb4b27f012038dfa0241c6f2f0bca8e9c545c2d9a170d47da5e62d70d19"},
		{"sqlite/database/bike.db", "1095987715496797905dd7a5e88102ddb44fc31dddce0578dbe29128b8718ccc"},
		{"sqlite/database/car.db", "91c61a150c5ed2ea7dea17c1cedb672641815a4436664125558c61dba1aec1a2"},
		{"sqlite/database/car_engine.db", "0a7bfd0333fa24c2e7d71e1612f1bbaa2c3bea7c54154d49c135627ca13fb442"},
		{"sqlite/database/computer.db", "c3553db14e8d15000ee2bfd3ec462e4449758cf0ab9ac707132cee7421a3942a"},
		{"sqlite/database/concert.sqlite", "4fa1ba5ab4577e895271088b1dc44aa94be88e25a54293317a67584112ef059d"},
		{"sqlite/database/contract.sqlite", "0d7e27cbc07e177126eda4914c9fee9eba6afdcfef03ffdc3eeee094c68aa399"},
		{"sqlite/database/earphone.db", "6ba014ee6bc6db0816691c9458c9faf1ef406cff27734c4abef0aced39e604b9"},
		{"sqlite/database/electric scooter.db", "2f9bdf8006eff3f421c2aa21602b5992e3fe76330c93ca91ca7bad165bb6fc53"},
		{"sqlite/database/exerciseclub.sqlite", "7c7870709414fdfc72a2e8725da16d293555267f87e1a006c9e83b375ec892bd"},
		{"sqlite/database/gas.db", "26d38f18acbd7ae12252cae0b0365f80312a0ed5c34e818799c48124b90d3c5e"},
		{"sqlite/database/generators.db", "b3917b01450cfebd5e5c30c538bc92669b890a5e48eda3ebd23091c7344ef77a"},
		{"sqlite/database/hospital.sqlite", "9814885b9c315749a4b57d4532e489260640eb79daf3f06b8de465aa27416dd1"},
		{"sqlite/database/ipad.db", "6e67e910e564dea41a5fb04e67df9b5309ea7279839f726071712076ef7dd338"},
		{"sqlite/database/lawnmower.db", "2596a0c4080339694d78c93b626ae0271a13713cc300b116ba562b9b365efb8c"},
		{"sqlite/database/mouse.db", "1bc0d7feda315b1450b48ca94de0aacd1ed75aa2fccc16ef2a60774cc50308a8"},
		{"sqlite/database/new_energy_vehicles.db", "41efaef03dc523a3851c28c443cb0c115a13bbc431baaf41fadca32b55e5c569"},
		{"sqlite/database/phone.db", "40fc80593c80f4647772266163a4ed26557f2627e60dff3136f13cb515e4d5eb"},
		{"sqlite/database/phone_market.db", "ce16c3f1e8022149555d4716b40499bccd5c362f8d51b6d4acab2ce4cb28d1f5"},
		{"sqlite/database/printer.db", "47f004e6fec3fa00ab4f355c764d401223d1f19651c96b69bdb579e6dbb5b4e6"},
		{"sqlite/database/railway.db", "f910c65718d194d9adeea4b0501a626ece0fa8c5866b624fba1fc5c432eab540"},
		{"sqlite/database/railway_station.db", "571f8ceb3145d1c6337a8183e78e6ee8153ae825e0ad344e95343d5d94d6c018"},
		{"sqlite/database/rice_cooker.db", "6b53dc1fa81c60c8a1827b7100b9623f991e2a8330f833c92d6e8ea4a2d38a13"},
		{"sqlite/database/roller_coaster.db", "ef8a69fb527d9de4e63631783ad8217c8a0253efe9a70a68ea9748208e6046b2"},
		{"sqlite/database/school.sqlite", "e2f2c540806874532f4a8c0144d9db0961680f87b130882766f881d4e50c4af5"},
		{"sqlite/database/ship.db", "541a2d7ce95cfff05414bc0d6d058b9e1e42986bd61dd2825749fc55aeeca31c"},
		{"sqlite/database/submarine.db", "03707136d2a914c66c6e8668ebb5f4ed09dfd8c86a0b57c9cfff8788772f071e"},
		{"sqlite/database/television.db", "31a970e8fa0ece9ab67a0867009ef2035d49f5b34589e7cd87d3b503f8e0eb52"},
		{"sqlite/database/watch.db", "d6918b13b84c15f1c02cedea302bad24904ea29ede38c343194d86a49f92f387"},
		{"sqlite/database/water pump.db", "9bdc04976335d25cbb69a9328609136e0a2fc3decefb7f9c72265f60a5fda4ca"},
		{"sqlite/database/water_heater.db", "5791ed994d3ab2050172266bca21c32b407a369dfac85d28cb8674bde22b6d4d"},
		{"sqlite/database/wind_turbine.db", "afc3a739e3e76e04b85b6f5bced18b425ffd00751117e29ec9f830c5ad1fed8c"},
		{"sqlite/database/yacht.db", "543435611a2a72a8f7838a3847e2218b7c39318bd905324ec9ebef6bfa4f3fde"},
	},
}

// FileCheck is the outcome of checking one data file against its recorded
// SHA-256.
type FileCheck struct {
	Path   string `json:"path"`
	Want   string `json:"want"`
	Got    string `json:"got,omitempty"`
	Status string `json:"status"` // "ok", "mismatch", "absent"
}

// ChecksumFamily returns the family whose recorded sums apply to benchmark
// name (archer-zh-dev -> archer, logiccat-mini500 -> logiccat, ...), or ""
// when none are recorded.
func ChecksumFamily(name string) string {
	k, ok := Lookup(name)
	if !ok || k.ChecksumFamily == nil {
		return ""
	}
	return k.ChecksumFamily(name)
}

// VerifyChecksums hashes every file recorded for benchmark name's family
// under dir and compares it with the recorded sum. It returns the family
// ("" and no checks when none is recorded) and one FileCheck per file.
func VerifyChecksums(name, dir string) (string, []FileCheck, error) {
	fam := ChecksumFamily(name)
	var out []FileCheck
	for _, f := range releaseSums[fam] {
		c := FileCheck{Path: f[0], Want: f[1]}
		got, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(f[0])))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Status = "absent"
		case err != nil:
			return fam, nil, fmt.Errorf("datasets: checksum %s: %w", f[0], err)
		case got == f[1]:
			c.Status, c.Got = "ok", got
		default:
			c.Status, c.Got = "mismatch", got
		}
		out = append(out, c)
	}
	return fam, out, nil
}
