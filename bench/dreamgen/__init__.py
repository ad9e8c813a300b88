"""Independent generators of synthetic dream lanes, each with the truth it planted.

Every generator writes its own kind of profile from its own words and sentence frames, seeded:

- `sitting`: a new user's first day, one sitting without dates (and its dated twin), rare real
  words (places, instruments, crafts) planted in pairs among everyday distractors;
- `dozen`: a dozen memories of one person with five true pairs and two food habits that are no
  pair;
- `chat`: a two-speaker chat in sessions over months, pairs and themes through people's, pets'
  and places' names;
- `journal`: one person's dated notes, forty to thousands of them, pairs and themes through
  invented names of cafes, boats, streets and people.

A planted link is a pair of memories sharing a name no other memory uses; a planted theme is
three to five memories sharing one. The lanes and their scoring are in `bench/dream_lanes.py`.
"""
