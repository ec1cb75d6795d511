-- Full-text search (plugins/tickets/search.server.ts). FTS5 with the trigram tokenizer finds any
-- substring of 3+ characters, so Chinese, Japanese and Korean words are found without word
-- breaks. Contentless tables (the text stays in tickets/messages) with contentless_delete, so a
-- row is dropped from the index by its id. Every indexed text gets two trailing spaces: then
-- every 1-2 character substring starts some indexed trigram, which is how short terms are found
-- (through message_search_vocab). Triggers keep the index in the writer's transaction.
-- Not indexed: system messages (event JSON), encrypted messages (ENCRYPTED_MESSAGE_TYPE in
-- app/conversation/constants.ts) and the quoted history of mails (messages.quoted).
CREATE VIRTUAL TABLE `ticket_search` USING fts5(`title`, `contact_name`, `contact_email`, `contact_phone`, tokenize = 'trigram', content = '', contentless_delete = 1);
--> statement-breakpoint
CREATE VIRTUAL TABLE `ticket_search_vocab` USING fts5vocab(`ticket_search`, 'row');
--> statement-breakpoint
CREATE VIRTUAL TABLE `message_search` USING fts5(`body`, tokenize = 'trigram', content = '', contentless_delete = 1);
--> statement-breakpoint
CREATE VIRTUAL TABLE `message_search_vocab` USING fts5vocab(`message_search`, 'row');
--> statement-breakpoint
CREATE TRIGGER `tickets_search_insert` AFTER INSERT ON `tickets` BEGIN
	INSERT INTO `ticket_search` (`rowid`, `title`, `contact_name`, `contact_email`, `contact_phone`)
		VALUES (NEW.`id`, NEW.`title` || '  ', NEW.`contact_name` || '  ', NEW.`contact_email` || '  ', NEW.`contact_phone` || '  ');
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_search_update` AFTER UPDATE OF `title`, `contact_name`, `contact_email`, `contact_phone` ON `tickets` BEGIN
	DELETE FROM `ticket_search` WHERE `rowid` = OLD.`id`;
	INSERT INTO `ticket_search` (`rowid`, `title`, `contact_name`, `contact_email`, `contact_phone`)
		VALUES (NEW.`id`, NEW.`title` || '  ', NEW.`contact_name` || '  ', NEW.`contact_email` || '  ', NEW.`contact_phone` || '  ');
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_search_delete` AFTER DELETE ON `tickets` BEGIN
	DELETE FROM `ticket_search` WHERE `rowid` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_insert` AFTER INSERT ON `messages` WHEN NEW.`type` NOT IN ('system', 'encrypted') BEGIN
	INSERT INTO `message_search` (`rowid`, `body`) VALUES (NEW.`id`, NEW.`body` || '  ');
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_update` AFTER UPDATE OF `body`, `type` ON `messages` BEGIN
	DELETE FROM `message_search` WHERE `rowid` = OLD.`id`;
	INSERT INTO `message_search` (`rowid`, `body`) SELECT NEW.`id`, NEW.`body` || '  ' WHERE NEW.`type` NOT IN ('system', 'encrypted');
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_delete` AFTER DELETE ON `messages` BEGIN
	DELETE FROM `message_search` WHERE `rowid` = OLD.`id`;
END;
--> statement-breakpoint
INSERT INTO `ticket_search` (`rowid`, `title`, `contact_name`, `contact_email`, `contact_phone`)
	SELECT `id`, `title` || '  ', `contact_name` || '  ', `contact_email` || '  ', `contact_phone` || '  ' FROM `tickets`;
--> statement-breakpoint
INSERT INTO `message_search` (`rowid`, `body`) SELECT `id`, `body` || '  ' FROM `messages` WHERE `type` NOT IN ('system', 'encrypted');
