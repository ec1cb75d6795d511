CREATE TABLE `unread_counts` (
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`unread` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `kind`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Triggers keep the counts exact on every path that changes participants: new participants,
-- activity and reads, removals, cascades from deleted tickets or users, and a live chat
-- converted to a ticket (its kind changes).
CREATE TRIGGER `participants_unread_insert` AFTER INSERT ON `participants` WHEN NEW.`unread` BEGIN
	INSERT INTO `unread_counts` (`user_id`, `kind`, `unread`) VALUES (NEW.`user_id`, NEW.`kind`, 1)
		ON CONFLICT (`user_id`, `kind`) DO UPDATE SET `unread` = `unread` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `participants_unread_delete` AFTER DELETE ON `participants` WHEN OLD.`unread` BEGIN
	UPDATE `unread_counts` SET `unread` = `unread` - 1 WHERE `user_id` = OLD.`user_id` AND `kind` = OLD.`kind`;
END;
--> statement-breakpoint
CREATE TRIGGER `participants_unread_update` AFTER UPDATE OF `unread`, `kind`, `user_id` ON `participants`
	WHEN OLD.`unread` IS NOT NEW.`unread` OR OLD.`kind` IS NOT NEW.`kind` OR OLD.`user_id` IS NOT NEW.`user_id` BEGIN
	UPDATE `unread_counts` SET `unread` = `unread` - 1 WHERE OLD.`unread` AND `user_id` = OLD.`user_id` AND `kind` = OLD.`kind`;
	INSERT INTO `unread_counts` (`user_id`, `kind`, `unread`) SELECT NEW.`user_id`, NEW.`kind`, 1 WHERE NEW.`unread`
		ON CONFLICT (`user_id`, `kind`) DO UPDATE SET `unread` = `unread` + 1;
END;
--> statement-breakpoint
INSERT INTO `unread_counts` (`user_id`, `kind`, `unread`)
	SELECT `user_id`, `kind`, count(*) FROM `participants` WHERE `unread` GROUP BY `user_id`, `kind`;
