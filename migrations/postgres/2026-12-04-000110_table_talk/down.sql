DROP TABLE chat_reports;
DROP TABLE chat_messages;
