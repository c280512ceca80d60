"""Vision: camera frames in, identified cards and tiles grouped into hands out. Knows no rules."""
