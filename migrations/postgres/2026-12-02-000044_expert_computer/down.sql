DELETE FROM accounts WHERE username_lower LIKE 'computer-expert-%' AND password_hash IS NULL;
