"""Reading a dashboard page back in the tests."""
import json
import re
from pathlib import Path


def page_data(path) -> dict:
    """The JSON the dashboard embeds, read back from the HTML file."""
    text = Path(path).read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="brecha-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))
