"""A person's history brought in: chat exports (ChatGPT, Claude), JSON Lines and Markdown notes,
read whole and checked before the first write, then stored as memories with their own dates."""
