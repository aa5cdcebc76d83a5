"""Every word the page shows exists in Spanish, English and Portuguese."""
import re
from importlib import resources

from brecha.report.dashboard import SCRIPTS
from brecha.report.dashboard.labels import LABELS


def _read(*parts):
    return resources.files("brecha.report").joinpath(*parts).read_text(encoding="utf-8")


def test_every_key_the_page_uses_has_three_languages():
    script = "\n".join(_read("assets", name) for name in SCRIPTS)
    template = _read("templates", "dashboard.html.j2")
    used = set(re.findall(r'\bT\("(\w+)"', script)) | set(re.findall(r'data-l(?:-aria)?="(\w+)"', template))
    used |= set(re.findall(r'setAttribute\("data-l", "(\w+)"\)', script))
    prefixed = {"m_": ("rate", "smoothed", "trend", "rr"), "q_": ("sii", "rii", "ti", "par_percent", "fifths"),
                "t_": ("decreasing", "stationary", "increasing", "sparse", "no_trend"),
                "c_": ("unit", "name", "region", "lower", "upper", "events", "births"),
                "model_": ("pooled", "fe", "re", "fe2", "between", "fd", "cre", "poisson", "negbin")}
    used |= {p + k for p, keys in prefixed.items() for k in keys} | {"infant", "neonatal", "postneonatal"}
    used = {k for k in used if not k.endswith("_")}  # T("c_" + column): the prefixed keys listed above
    missing = sorted(k for k in used if k not in LABELS)
    assert missing == []
    assert len(used) > 60
    for key, words in LABELS.items():
        assert len(words) == 3 and all(w.strip() for w in words), key
    # placeholders agree across languages
    for key, words in LABELS.items():
        fields = [sorted(re.findall(r"\{(\w+)\}", w)) for w in words]
        assert fields[0] == fields[1] == fields[2], key
