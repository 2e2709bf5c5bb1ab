"""The instructor's one-file HTML report: well-formed, self-contained, escaped, and counting what the JSON counts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus" / "nivel-2"
FILES = ["ok_os_replace_fsync.py", "ok_history_copies.py", "bad_seed_starter.py", "bad_only_point_a_fixed.py",
         "bad_tokens_left_at_zero.py", "bad_syntax_error.py", "bad_dup_in_place.py"]


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.attrs, self.scripts, self.current = [], [], {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.attrs.append((tag, attrs))
        if tag not in ("meta", "link", "input", "br"):
            self.stack.append(tag)
        if tag == "script":
            self.current = attrs.get("id") or attrs.get("type")
            self.scripts[self.current] = ""

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()
        if tag == "script":
            self.current = None

    def handle_data(self, data):
        if self.current:
            self.scripts[self.current] += data


def cli(files, fmt, cwd=ROOT):
    run = subprocess.run([sys.executable, "-m", "graders", "nivel-2", *map(str, files), "--format", fmt],
                         capture_output=True, text=True, timeout=600, cwd=cwd)
    assert run.returncode in (0, 1, 2, 3), run.stderr
    return run.stdout


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("entregas")
    files = [shutil.copy(CORPUS / name, folder / name) for name in FILES]
    hostile = folder / 'aluno<img src=x onerror=alert(1)>.py'
    hostile.write_text((CORPUS / "bad_seed_starter.py").read_text())
    (folder / "vazio.json").write_text("{}")
    files += [hostile, folder / "vazio.json"]
    return cli(files, "html"), json.loads(cli(files, "json"))["submissions"], files


def test_report_is_well_formed_and_self_contained(reports):
    page, _, _ = reports
    parser = Collector()
    parser.feed(page)
    parser.close()
    assert parser.stack == ["html"] or parser.stack == [], parser.stack
    for tag, attrs in parser.attrs:
        for name in ("src", "href", "action", "srcset", "data"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith(("#", "data:")), f"<{tag} {name}={value!r}> reaches outside the file"
    assert "http://" not in page and "https://" not in page and "@import" not in page and "url(" not in page
    assert "<img src=x" not in page, "a file name went into the page unescaped"
    json.loads(parser.scripts["dados-linhas"])


def test_counts_match_the_json_report(reports):
    page, results, files = reports
    parser = Collector()
    parser.feed(page)
    summary = next(a for t, a in parser.attrs if a.get("id") == "resumo")
    assert int(summary["data-total"]) == len(results) == len(files)
    assert int(summary["data-passed-all"]) == sum(r["passed"] for r in results)
    assert int(summary["data-errors"]) == sum("error" in r for r in results) == 1
    bars = {a["data-criterion"]: a for t, a in parser.attrs if t == "li" and "data-criterion" in a}
    for cid, bar in bars.items():
        judged = [r for r in results if "error" not in r]
        assert int(bar["data-passed-count"]) == sum(next(c["passed"] for c in r["criteria"] if c["id"] == cid) for r in judged)
        assert int(bar["data-judged"]) == len(judged)
    rows = [a for t, a in parser.attrs if t == "tr" and "data-file" in a]
    assert [r["data-file"] for r in rows] == [r["file"] for r in results]
    # Every student has details (the written answers are there too), each named by its row's link.
    details = [a for t, a in parser.attrs if t == "details" and "submission" in a.get("class", "")]
    assert len(details) == len(results)
    links = [a["href"] for t, a in parser.attrs if t == "a" and a.get("href", "").startswith("#submissao-")]
    assert links == ["#" + d["id"] for d in details]
    timelines = json.loads(parser.scripts["dados-linhas"])
    assert len(timelines) == sum(1 for r in results if r.get("timeline"))
    for key, timeline in timelines.items():
        assert timeline == results[int(key) - 1]["timeline"], "the report's timeline is not the judge's"


def test_json_report_carries_the_crash_points(reports):
    _, results, _ = reports
    starter = next(r for r in results if r["file"].endswith("bad_seed_starter.py"))
    timeline = starter["timeline"]
    assert timeline["path"] == "checkpoint.json" and timeline["groups"][:3] == ["início", "modelo 1", "ferramenta 1"]
    assert timeline["total"] == len(timeline["points"]) and timeline["power_loss"] == "advice"
    failing = [p for p in timeline["points"] if p["outcome"] == "falhou"]
    assert {p["criterion"] for p in failing} == {"escrita-atomica", "ponto-a"}
    for point in timeline["points"]:
        assert set(point) >= {"n", "op", "torn_at", "kind", "group", "where", "outcome", "criterion", "message", "expected",
                              "disk", "power"}
        assert 0 <= point["disk"] < len(timeline["disks"])
    assert next(r for r in results if r["file"].endswith("bad_syntax_error.py"))["timeline"] is None


@pytest.mark.browser
def test_report_works_in_chromium(reports, browser, tmp_path):
    page_html, results, _ = reports
    path = tmp_path / "relatorio.html"
    path.write_text(page_html, encoding="utf-8")
    context = browser.new_context()
    page = context.new_page()
    errors, requests = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
    page.goto(path.as_uri())
    assert page.locator(".crash-timeline__mark").count() > 0
    assert errors == [] and requests == []
    page.fill("#filtro", "ok_")
    assert page.locator("#contagem").inner_text() == "2 de 9 submissões na tabela"
    page.fill("#filtro", "")
    page.select_option("#situacao", "aprovada")
    assert page.locator("tbody tr[data-file]:not([hidden])").count() == sum(r["passed"] for r in results)
    page.select_option("#situacao", "todas")
    page.get_by_role("button", name="aluno / arquivo").click()
    names = page.locator("tbody tr[data-file]").evaluate_all("rows => rows.map(r => r.dataset.nome)")
    assert names == sorted(names, key=str.lower) or names == sorted(names)
    context.close()
