"""A correct `top_tags` (the fixture task's function) that the panel tests label and check."""

GOOD = (
    "def top_tags(posts, k):\n    counts = {}\n    for post in posts:\n"
    "        for tag in {t.strip().lower() for t in post.split(',')} - {''}:\n"
    "            counts[tag] = counts.get(tag, 0) + 1\n"
    "    return sorted(counts, key=lambda t: (-counts[t], t))[:k]\n"
)
