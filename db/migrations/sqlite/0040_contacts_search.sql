CREATE TABLE `product_pending_images` (
	`file_key` text PRIMARY KEY NOT NULL,
	`user_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `product_pending_images_created_idx` ON `product_pending_images` (`created_at`);
--> statement-breakpoint
-- The contacts list's search (plugins/contacts/search.server.ts): an FTS5 trigram index of each
-- contact's name, emails and phones, one row per contact (rowid = contacts.id), so a word inside
-- a name ("Rahman" in "Zulkifli Rahman"), an email or a phone is found without reading every
-- contact. One text per contact: the name, its emails and its phones on lines of their own (a
-- search never spans two of them: it holds no line break). Contentless with contentless_delete,
-- as ticket_search (0014_search): a contact is dropped by its id and written anew. The text ends
-- in two spaces, so every 1-2 character substring starts some indexed trigram (found through
-- contact_search_vocab). Triggers keep it in the writer's transaction.
CREATE VIRTUAL TABLE `contact_search` USING fts5(`body`, tokenize = 'trigram', content = '', contentless_delete = 1);
--> statement-breakpoint
CREATE VIRTUAL TABLE `contact_search_vocab` USING fts5vocab(`contact_search`, 'row');
--> statement-breakpoint
CREATE TRIGGER `contacts_search_insert` AFTER INSERT ON `contacts` BEGIN
	INSERT INTO `contact_search` (`rowid`, `body`) SELECT NEW.`id`, NEW.`name` || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = NEW.`id` AND `kind` = 'email'), '') || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = NEW.`id` AND `kind` = 'phone'), '') || '  ';
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_search_update` AFTER UPDATE OF `name` ON `contacts` BEGIN
	DELETE FROM `contact_search` WHERE `rowid` = OLD.`id`;
	INSERT INTO `contact_search` (`rowid`, `body`) SELECT NEW.`id`, NEW.`name` || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = NEW.`id` AND `kind` = 'email'), '') || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = NEW.`id` AND `kind` = 'phone'), '') || '  ';
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_search_delete` AFTER DELETE ON `contacts` BEGIN
	DELETE FROM `contact_search` WHERE `rowid` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_identities_search_insert` AFTER INSERT ON `contact_identities` WHEN NEW.`kind` IN ('email', 'phone') BEGIN
	DELETE FROM `contact_search` WHERE `rowid` = NEW.`contact_id`;
	INSERT INTO `contact_search` (`rowid`, `body`) SELECT c.`id`, c.`name` || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'email'), '') || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'phone'), '') || '  '
		FROM `contacts` c WHERE c.`id` = NEW.`contact_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_identities_search_delete` AFTER DELETE ON `contact_identities` WHEN OLD.`kind` IN ('email', 'phone') BEGIN
	DELETE FROM `contact_search` WHERE `rowid` = OLD.`contact_id`;
	INSERT INTO `contact_search` (`rowid`, `body`) SELECT c.`id`, c.`name` || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'email'), '') || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'phone'), '') || '  '
		FROM `contacts` c WHERE c.`id` = OLD.`contact_id`;
END;
--> statement-breakpoint
-- a merge moves identities to another contact: both are written anew
CREATE TRIGGER `contact_identities_search_update` AFTER UPDATE ON `contact_identities` WHEN OLD.`kind` IN ('email', 'phone') OR NEW.`kind` IN ('email', 'phone') BEGIN
	DELETE FROM `contact_search` WHERE `rowid` IN (OLD.`contact_id`, NEW.`contact_id`);
	INSERT INTO `contact_search` (`rowid`, `body`) SELECT c.`id`, c.`name` || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'email'), '') || char(10)
		|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'phone'), '') || '  '
		FROM `contacts` c WHERE c.`id` IN (OLD.`contact_id`, NEW.`contact_id`);
END;
--> statement-breakpoint
INSERT INTO `contact_search` (`rowid`, `body`) SELECT c.`id`, c.`name` || char(10)
	|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'email'), '') || char(10)
	|| coalesce((SELECT group_concat(`value`, char(10)) FROM `contact_identities` WHERE `contact_id` = c.`id` AND `kind` = 'phone'), '') || '  '
	FROM `contacts` c;
