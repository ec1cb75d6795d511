CREATE TABLE `kb_article_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`article_id` integer NOT NULL,
	`version` integer NOT NULL,
	`type` text NOT NULL,
	`lang` text NOT NULL,
	`category` text NOT NULL,
	`title` text NOT NULL,
	`summary` text NOT NULL,
	`body` text NOT NULL,
	`visibility` text NOT NULL,
	`edited_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`article_id`) REFERENCES `kb_articles`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`edited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kb_article_versions_article_idx` ON `kb_article_versions` (`article_id`,`version`);--> statement-breakpoint
CREATE TABLE `kb_articles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text DEFAULT 'kb' NOT NULL,
	`lang` text DEFAULT 'en' NOT NULL,
	`category` text DEFAULT '' NOT NULL,
	`title` text NOT NULL,
	`summary` text DEFAULT '' NOT NULL,
	`body` text NOT NULL,
	`visibility` text DEFAULT 'public' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_by` integer,
	`updated_by` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `kb_articles_list_idx` ON `kb_articles` (`type`,`lang`,`visibility`,`updated_at`);--> statement-breakpoint
CREATE INDEX `kb_articles_updated_idx` ON `kb_articles` (`updated_at`);--> statement-breakpoint
CREATE TABLE `kb_images` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`file_key` text NOT NULL,
	`name` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
-- Full-text search of the knowledge base (plugins/kb/search.server.ts): FTS5 with the trigram
-- tokenizer (any substring of 3+ characters, Chinese, Japanese and Korean included), contentless
-- (the text stays in kb_articles), kept by triggers in the writer's transaction.
CREATE VIRTUAL TABLE `kb_search` USING fts5(`title`, `category`, `body`, tokenize = 'trigram', content = '', contentless_delete = 1);
--> statement-breakpoint
CREATE TRIGGER `kb_articles_search_insert` AFTER INSERT ON `kb_articles` BEGIN
	INSERT INTO `kb_search` (`rowid`, `title`, `category`, `body`) VALUES (NEW.`id`, NEW.`title`, NEW.`category`, NEW.`body`);
END;
--> statement-breakpoint
CREATE TRIGGER `kb_articles_search_update` AFTER UPDATE OF `title`, `category`, `body` ON `kb_articles` BEGIN
	DELETE FROM `kb_search` WHERE `rowid` = OLD.`id`;
	INSERT INTO `kb_search` (`rowid`, `title`, `category`, `body`) VALUES (NEW.`id`, NEW.`title`, NEW.`category`, NEW.`body`);
END;
--> statement-breakpoint
CREATE TRIGGER `kb_articles_search_delete` AFTER DELETE ON `kb_articles` BEGIN
	DELETE FROM `kb_search` WHERE `rowid` = OLD.`id`;
END;
