"""Build the Java oracle harness: fetch the Paimon 0.9.0 jar, find Hadoop, compile our sources.

Usage: ``python -m conformance.java.build`` (prints where everything is and how long each step
took). Tests call :func:`ensure_built`, which does only the steps whose output is missing.

Where things come from:

* Paimon 0.9.0 is the bundled jar ``deps/jars/paimon-python-java-bridge-0.9.0.jar`` inside the
  sdist of ``pypaimon==0.2.0`` on PyPI, downloaded with ``pip download --no-deps``. Both the
  sdist and the jar are checked against the SHA-256 digests recorded below.
* Hadoop's classes (which Paimon's file IO needs) come from pyspark 4.x's ``jars/`` directory:
  ``hadoop-client-api-*.jar`` and ``hadoop-client-runtime-*.jar``.
* The harness sources are the ``*.java`` files beside this module. They are compiled with
  ``javac`` into ``<cache>/harness/<digest of the sources>/``, so an edited source compiles anew.

The cache root is ``$PAIMON_KIT_CACHE`` or ``~/.cache/paimon-kit``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CACHE_ENV = "PAIMON_KIT_CACHE"
DEFAULT_CACHE = Path("~/.cache/paimon-kit")

SDIST_REQUIREMENT = "pypaimon==0.2.0"
SDIST_NAME = "pypaimon-0.2.0.tar.gz"
SDIST_SHA256 = "43ac684779841da17528b5f241ede6149bcdab4d16f3cd80f713262f6ed04720"
JAR_MEMBER = "pypaimon-0.2.0/deps/jars/paimon-python-java-bridge-0.9.0.jar"
JAR_NAME = "paimon-python-java-bridge-0.9.0.jar"
JAR_SHA256 = "dc9048366715fc75d2b44e3f8ac1dbfab011b8c34aafc26ffa216500fb890b0e"
PAIMON_VERSION = "0.9.0"

HADOOP_JAR_PATTERNS = ("hadoop-client-api-*.jar", "hadoop-client-runtime-*.jar")
SOURCE_DIR = Path(__file__).resolve().parent
MAIN_CLASS = "PaimonHarness"
DOWNLOAD_TIMEOUT_SECONDS = 600
COMPILE_TIMEOUT_SECONDS = 300
HASH_CHUNK_BYTES = 1 << 20
PIP_LINES_IN_MESSAGE = 3


class BuildError(RuntimeError):
    """The harness cannot be built; the message says what is missing and how to fix it."""


class ToolMissing(BuildError):
    """java, javac or pyspark (for the Hadoop jars) is not installed."""


class DownloadFailed(BuildError):
    """The Paimon jar is not cached and pip could not download it (usually: no network)."""


@dataclass(frozen=True)
class Build:
    """Everything needed to start the harness JVM."""

    java: str
    classes_dir: Path
    classpath: tuple[Path, ...]
    main_class: str = MAIN_CLASS
    timings: dict[str, float] = field(default_factory=dict, compare=False)

    def command(self) -> list[str]:
        """The ``java`` command line that starts the harness."""
        return [self.java, "-cp", os.pathsep.join(map(str, self.classpath)), self.main_class]


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or DEFAULT_CACHE).expanduser()


def find_java_tool(name: str) -> str | None:
    """``java`` / ``javac`` from ``$JAVA_HOME/bin`` when set, else from ``PATH``."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def require_java_tool(name: str) -> str:
    tool = find_java_tool(name)
    if tool is None:
        raise ToolMissing(
            f"'{name}' was not found on PATH or in $JAVA_HOME/bin; install a JDK 17 "
            "(e.g. apt-get install openjdk-17-jdk-headless)"
        )
    return tool


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def check_digest(path: Path, expected: str) -> None:
    actual = sha256_of(path)
    if actual != expected:
        raise BuildError(f"{path} has SHA-256 {actual}, expected {expected}; delete it and retry")


def hadoop_jars() -> list[Path]:
    """Hadoop's client API and runtime jars from the installed pyspark (found, not imported)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise ToolMissing(
            "pyspark is not installed; its jars/ directory provides Hadoop's client jars "
            "(pip install 'pyspark>=4,<5')"
        )
    jars_dir = Path(spec.origin).resolve().parent / "jars"
    found = []
    for pattern in HADOOP_JAR_PATTERNS:
        matches = sorted(jars_dir.glob(pattern))
        if not matches:
            raise ToolMissing(f"no {pattern} in {jars_dir}; install pyspark 4.x")
        found.append(matches[-1])
    return found


def download_sdist(jars_dir: Path) -> Path:
    """The ``pypaimon==0.2.0`` sdist in ``jars_dir``, downloaded with pip when not cached."""
    sdist = jars_dir / SDIST_NAME
    if sdist.is_file():
        return sdist
    jars_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=jars_dir, prefix="download-") as scratch:
        command = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
            "--disable-pip-version-check", "--dest", scratch, SDIST_REQUIREMENT,
        ]  # fmt: skip
        try:
            result = subprocess.run(
                command,
                check=False,
                capture_output=True,
                text=True,
                timeout=DOWNLOAD_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise DownloadFailed(
                f"'pip download {SDIST_REQUIREMENT}' took over {DOWNLOAD_TIMEOUT_SECONDS}s"
            ) from None
        downloaded = Path(scratch) / SDIST_NAME
        if result.returncode != 0 or not downloaded.is_file():
            said = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
            raise DownloadFailed(
                f"could not download {SDIST_REQUIREMENT} from PyPI (is the network up?); "
                f"pip said: {' | '.join(said[-PIP_LINES_IN_MESSAGE:])}"
            )
        check_digest(downloaded, SDIST_SHA256)
        downloaded.replace(sdist)
    return sdist


def extract_jar(sdist: Path, jars_dir: Path) -> Path:
    """The Paimon jar, extracted from the sdist when not cached, checked against its digest."""
    jar = jars_dir / JAR_NAME
    if jar.is_file():
        return jar
    with tarfile.open(sdist, "r:gz") as archive:
        member = archive.extractfile(JAR_MEMBER)
        if member is None:
            raise BuildError(f"{sdist} has no {JAR_MEMBER}")
        with tempfile.NamedTemporaryFile(dir=jars_dir, suffix=".jar", delete=False) as out:
            shutil.copyfileobj(member, out)
    partial = Path(out.name)
    partial.chmod(0o644)
    try:
        check_digest(partial, JAR_SHA256)
    except BuildError:
        partial.unlink()
        raise
    partial.replace(jar)
    return jar


def java_sources() -> list[Path]:
    return sorted(SOURCE_DIR.glob("*.java"))


def sources_digest(sources: list[Path]) -> str:
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def compile_harness(javac: str, classpath: list[Path], harness_dir: Path) -> Path:
    """Compile the sources into ``harness_dir/<digest>/`` unless that directory exists."""
    sources = java_sources()
    classes_dir = harness_dir / sources_digest(sources)
    if (classes_dir / f"{MAIN_CLASS}.class").is_file():
        return classes_dir
    harness_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=harness_dir, prefix="compiling-"))
    command = [
        javac, "-nowarn", "-encoding", "UTF-8", "-d", str(scratch),
        "-cp", os.pathsep.join(map(str, classpath)), *map(str, sources),
    ]  # fmt: skip
    result = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_SECONDS
    )
    if result.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise BuildError(f"javac failed on the harness sources:\n{result.stderr.strip()}")
    scratch.chmod(0o755)
    try:
        scratch.rename(classes_dir)
    except OSError:
        # Another process compiled the same sources first; its output is identical.
        shutil.rmtree(scratch, ignore_errors=True)
    return classes_dir


def ensure_built() -> Build:
    """Fetch, extract and compile whatever is missing; raise :class:`BuildError` subclasses."""
    timings: dict[str, float] = {}
    started = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal started
        now = time.perf_counter()
        timings[step] = now - started
        started = now

    java = require_java_tool("java")
    javac = require_java_tool("javac")
    hadoop = hadoop_jars()
    lap("find tools")
    jars_dir = cache_root() / "jars"
    sdist = None if (jars_dir / JAR_NAME).is_file() else download_sdist(jars_dir)
    lap("download sdist")
    jar = jars_dir / JAR_NAME if sdist is None else extract_jar(sdist, jars_dir)
    lap("extract jar")
    libraries = [jar, *hadoop]
    classes_dir = compile_harness(javac, libraries, cache_root() / "harness")
    lap("compile harness")
    return Build(java, classes_dir, (classes_dir, *libraries), timings=timings)


def main() -> int:
    total = time.perf_counter()
    try:
        build = ensure_built()
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for step, seconds in build.timings.items():
        print(f"{step:<16} {seconds:8.2f} s")
    print(f"{'total':<16} {time.perf_counter() - total:8.2f} s")
    print(f"paimon jar       {build.classpath[1]}")
    print(f"classes          {build.classes_dir}")
    print("run              " + " ".join(build.command()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
