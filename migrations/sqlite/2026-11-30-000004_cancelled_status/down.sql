UPDATE games SET status = 'finished' WHERE status = 'cancelled';
