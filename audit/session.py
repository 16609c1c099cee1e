"""The audit's Spark session: local tuning, the JVM class-data sharing cache, and shipping visguard's own code
to executors that do not have it (a cluster's master, or Spark Connect).

No module-level mutable state: what a session's JVM does with its class archive is kept on the session
(:class:`ClassArchive`, read back by :func:`stop_session`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

LOCAL_JAVA_OPTIONS = (
    "-XX:+UseParallelGC -XX:CompileThresholdScaling=5 -XX:MaxInlineLevel=9 -XX:FreqInlineSize=150 "
    "-XX:InlineSmallCode=1000"
)
KEEP_ARCHIVES = 3  # across environments (each ~190 MB); one per environment (pyspark install) at most
KEEP_CODE_ZIPS = 3  # zips of visguard's code for executors (about 1 MB each)
STALE_DAYS = 30  # an archive no run has used for this long is removed by the next run that writes one
_ARCHIVE_ATTR = "_visguard_class_archive"


@dataclass
class ClassArchive:
    """The class archive of one session's JVM: the one it starts from (``used``), or the one it writes when it
    exits (``tmp``, moved to ``final`` by :func:`stop_session`)."""

    options: str = ""
    used: Path | None = None
    tmp: Path | None = None
    final: Path | None = None

    @property
    def writing(self) -> bool:
        return self.tmp is not None


def is_local(master: str | None) -> bool:
    return bool(master and master.startswith("local"))


def spark_session(
    master: str | None = "local[*]",
    app: str = "visguard-audit",
    extra: dict | None = None,
    class_archive: bool = False,
    remote: str | None = None,
):
    """A Spark session for the audit.

    - ``master`` local: this interpreter runs the Python workers; JIT/GC settings for a short-lived JVM; with
      ``class_archive`` the JVM starts from a class-data sharing archive kept in the cache directory (without
      one, it writes it when it exits: :func:`stop_session`).
    - any other master (``spark://``, ``yarn``, ``k8s://``, or None under spark-submit): the cluster's Python
      runs the workers, so visguard ships its own code to them (:func:`ship_code`); they need only numpy and
      pyarrow.
    - ``remote`` (``sc://HOST:PORT``): a Spark Connect session; the code goes as a Python artifact.
    """
    from pyspark.sql import SparkSession

    if remote:
        spark = SparkSession.builder.remote(remote).appName(app).getOrCreate()
        for k, v in (extra or {}).items():
            spark.conf.set(k, v)
        ship_code(spark)
        return spark
    local = is_local(master)
    if local:
        # Local workers must run this interpreter (the one with visguard installed), not the first python3.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app)
    if master:  # None under spark-submit: its --master wins
        builder = builder.master(master)
    builder = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.memory", os.environ.get("VISGUARD_SPARK_DRIVER_MEMORY", "4g"))
        # the inventory glob names one file per account and region: list them on the driver (milliseconds)
        # rather than in a Spark job of one task per file
        .config("spark.sql.sources.parallelPartitionDiscovery.threshold", "100000")
    )
    archive = ClassArchive()
    java = ""
    if local:
        # The local JVM is the driver and the executor, and lives for a minute or two: a third or more of its
        # CPU goes to the JIT compilers. The parallel collector's simpler write barriers give the JIT less code
        # than G1's, 5x the default compile thresholds leaves the lukewarm code interpreted, and shallower C2
        # inlining makes each compilation cheaper (benchmarks/RESULTS.md). A cluster's own settings apply there.
        java = os.environ.get("VISGUARD_SPARK_JAVA_OPTIONS", LOCAL_JAVA_OPTIONS)
        java = f"{java} {_log_options()}".strip()
        # (not when the caller sets the JVM options itself through ``extra``: those replace these)
        own = "spark.driver.extraJavaOptions" in (extra or {})
        if class_archive and not own:
            archive = class_archive_options(java)
        builder = builder.config("spark.driver.extraJavaOptions", f"{java} {archive.options}".strip())
        # Adaptive execution re-plans the query after every shuffle stage; on two local cores that planning
        # (and the code it generates and compiles) costs more than it saves: the plan is the same at 20k and
        # 1M queues (join keys without skew, 8 shuffle partitions). A cluster keeps its own setting.
        builder = builder.config("spark.sql.adaptive.enabled", "false")
        # An inventory is one small file per account and region. Spark counts each file as 4 MB more to read
        # (openCostInBytes) when it packs files into read tasks: 1,500 files of 0.5 MB (1M queues in 500
        # accounts) made ~50 read tasks and ~50 tasks in every stage over the cached records, against ~7 for
        # the same queues in 50 accounts; each task costs its scheduling, deserialisation and set-up in the one
        # local JVM. Counted at 64 KB a file, the read tasks follow the bytes, not the account count.
        builder = builder.config("spark.sql.files.openCostInBytes", str(64 * 1024))
        # The one cache (the parsed records) is built once and scanned a few times in this one JVM: compressing
        # its column batches costs more CPU than the memory it saves is worth here (~8 CPU-s at 1M queues).
        builder = builder.config("spark.sql.inMemoryColumnarStorage.compressed", "false")
    for k, v in (extra or {}).items():
        builder = builder.config(k, v)
    try:
        with _quiet_jvm_start(local):
            spark = builder.getOrCreate()
    except Exception:
        if archive.used is None or os.environ.get("VISGUARD_SPARK_CDS") == "require":
            raise
        # an archive this JVM cannot map (truncated, or from another build of the JDK at the same path) makes
        # it exit at start: drop the archive and start without one (the next run writes a new one)
        archive.used.unlink(missing_ok=True)
        _env_file(archive.used).unlink(missing_ok=True)
        archive = ClassArchive()
        with _quiet_jvm_start(local):
            spark = builder.config("spark.driver.extraJavaOptions", java).getOrCreate()
    setattr(spark, _ARCHIVE_ATTR, archive)
    if not local:
        ship_code(spark)
    return spark


LOG4J = Path(__file__).with_name("log4j2.properties")
# what a local JVM prints at start that says nothing to an audit's user: the JDK's note on the incubator module
# Spark 4 loads (the launcher adds it; no option silences it)
_START_NOISE = (b"WARNING: Using incubator modules",)


def _log_options() -> str:
    """The JVM option that gives Spark visguard's logging (errors only) from its first line, unless
    VISGUARD_SPARK_LOG4J=0 or the path cannot be passed (Spark splits extraJavaOptions on whitespace)."""
    path = str(LOG4J)
    if os.environ.get("VISGUARD_SPARK_LOG4J", "1") in ("0", "false", "no", "off") or not LOG4J.is_file():
        return ""
    if any(ch.isspace() or ch in "'\"" for ch in path):
        return ""
    return f"-Dlog4j2.configurationFile=file:{path}"


@contextlib.contextmanager
def _quiet_jvm_start(local: bool):
    """While a local JVM starts, the process's stderr (fd 2, which the JVM inherits) goes through a pipe that
    drops the lines in _START_NOISE and passes everything else on, for as long as the JVM writes to it."""
    if not local or os.environ.get("VISGUARD_SPARK_LOG4J", "1") in ("0", "false", "no", "off"):
        yield
        return
    import threading

    try:
        sys.stderr.flush()
        saved = os.dup(2)
        r, w = os.pipe()
    except (OSError, ValueError):
        yield
        return

    def forward() -> None:
        with os.fdopen(r, "rb", buffering=0) as src:
            pending = b""
            while chunk := src.read(65536):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                out = b"".join(line + b"\n" for line in lines if not line.startswith(_START_NOISE))
                if out:
                    with contextlib.suppress(OSError):
                        os.write(saved, out)
            if pending and not pending.startswith(_START_NOISE):
                with contextlib.suppress(OSError):
                    os.write(saved, pending)
        os.close(saved)  # the JVM (the last writer) exited

    os.dup2(w, 2)
    os.close(w)
    threading.Thread(target=forward, name="visguard-jvm-stderr", daemon=True).start()
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)  # this process writes to its own stderr again; the JVM keeps the pipe


def archive_of(spark) -> ClassArchive:
    return getattr(spark, _ARCHIVE_ATTR, None) or ClassArchive()


def cache_dir() -> Path:
    """Where visguard keeps files worth keeping between runs (``VISGUARD_CACHE_DIR``, else the XDG cache)."""
    env = os.environ.get("VISGUARD_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "visguard"


# ---------------------------------------------------------------------------------------------- shipping the code
def code_zip(folder: Path | None = None) -> Path:
    """A zip of the installed ``visguard`` package (what executors import: the audit's transforms, the linter's
    model and rules, the engine's risk model), built once per content into the cache directory.

    The zip holds Python sources only (no tests, no node_modules, no CDK app); executors need numpy and pyarrow
    besides (and pyspark, which every Spark Python worker has)."""
    import hashlib
    import zipfile

    roots = _package_dirs()
    files: list[tuple[str, Path]] = []
    for name, root in roots:
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root)
            if p.is_file() and _shippable(rel):
                files.append((f"{name}/{rel.as_posix()}", p))
    digest = hashlib.sha256()
    for arc, p in files:
        st = p.stat()
        digest.update(f"{arc}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"visguard-code-{digest.hexdigest()[:16]}.zip"
    if target.is_file():
        return target
    tmp = folder / f".{target.name}.{os.getpid()}.tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, p in files:
            z.write(p, arc)
    os.replace(tmp, target)
    # a new zip per change of visguard's code (an upgrade, an edit in a checkout): keep the newest few
    zips = sorted(folder.glob("visguard-code-*.zip"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in zips[KEEP_CODE_ZIPS:]:
        if old != target:
            old.unlink(missing_ok=True)
    return target


_SKIP_DIRS = {"__pycache__", "node_modules", "cdk.out", "cdk_app", "constructs", "cfnlint_rules", "examples"}


def _shippable(rel: Path) -> bool:
    return not (set(rel.parts[:-1]) & _SKIP_DIRS) and rel.suffix in (".py", ".json")


def _package_dirs() -> list[tuple[str, Path]]:
    """(import path prefix, folder) of every part of the ``visguard`` namespace the executors import. The
    editable install maps them from separate folders (pyproject's package-dir), so each is zipped under its
    import name."""
    import visguard
    import visguard.audit
    import visguard.engine
    import visguard.linter

    dirs = [
        ("visguard", Path(visguard.__file__).parent),
        ("visguard/audit", Path(visguard.audit.__file__).parent),
        ("visguard/engine", Path(visguard.engine.__file__).parent),
        ("visguard/linter", Path(visguard.linter.__file__).parent),
    ]
    try:  # consumer profiles of a --config are matched by the linter's config loader, which imports PyYAML:
        import yaml  # its pure-Python half goes along (the C extension is optional)

        dirs.append(("yaml", Path(yaml.__file__).parent))
    except ImportError:
        pass
    return dirs


def ship_code(spark) -> Path:
    """Add visguard's code to the session, so executors without visguard installed can run the audit: a classic
    session gets it with ``addPyFile``, a Spark Connect session as a Python artifact."""
    path = code_zip()
    if _is_connect(spark):
        spark.addArtifacts(str(path), pyfile=True)
    else:
        spark.sparkContext.addPyFile(str(path))
    return path


def _is_connect(spark) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


# ---------------------------------------------------------------------------------------------- class archive
def class_archive_options(java_options: str) -> ClassArchive:
    """JVM options to start from a dynamic class-data sharing archive (JEP 350) of the classes Spark loads.

    Loading and verifying ~20,000 classes from Spark's jars costs a short-lived local JVM 3-6 s of CPU on every
    run; mapped from an archive they cost almost nothing. The archive is specific to the JVM, the jars (and
    where they are) and the options, so its name carries a hash of them. Without an archive, the JVM writes
    one to a temporary name when it exits and :func:`stop_session` moves it into place. A JVM that cannot map
    an archive (damaged, or from another JDK build at the same path) exits at start: :func:`spark_session`
    then drops it and starts without. ``VISGUARD_SPARK_CDS=0`` turns all this off; ``=require`` makes a JVM
    that cannot map an existing archive fail instead."""
    if os.environ.get("VISGUARD_SPARK_CDS", "1") in ("0", "false", "no", "off"):
        return ClassArchive()
    import hashlib
    import shutil

    import pyspark

    java = Path(
        os.path.realpath(
            Path(os.environ["JAVA_HOME"]) / "bin" / "java"
            if os.environ.get("JAVA_HOME")
            else shutil.which("java") or "java"
        )
    )
    # the JVM binary's size and time too: a JDK updated in place keeps its path
    st = java.stat() if java.is_file() else None
    jvm = [str(java), *((str(st.st_size), str(int(st.st_mtime))) if st else ())]
    jars = Path(pyspark.__file__).parent / "jars"
    listing = sorted(f"{p.name}:{p.stat().st_size}" for p in jars.glob("*.jar")) if jars.is_dir() else []
    # the jars' directory too: the JVM checks that its class path is the one the archive was written with
    text = "\n".join([*jvm, pyspark.__version__, str(jars), java_options, *listing])
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = cache_dir()
    if any(ch.isspace() or ch in "'\"" for ch in str(folder)):
        return ClassArchive()  # Spark splits extraJavaOptions on whitespace: no archive, not a broken option
    final = folder / f"{ARCHIVE_PREFIX}{env_key(jars)}-{key}.jsa"
    # cds logging off: the JVM would print a warning per class it cannot archive (signed jars, old bytecode);
    # a JVM that crashes on a damaged archive writes its report here, not into the working directory
    quiet = f"-Xlog:cds=off -Xlog:cds+dynamic=off -XX:ErrorFile={folder / 'jvm-error-%p.log'}"
    if final.is_file():
        with contextlib.suppress(OSError):
            os.utime(final)  # used now: pruning goes by the last use
        # "require": fail to start rather than run without the archive (to check that it is used)
        strict = " -Xshare:on" if os.environ.get("VISGUARD_SPARK_CDS") == "require" else ""
        return ClassArchive(options=f"-XX:SharedArchiveFile={final} {quiet}{strict}", used=final)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ClassArchive()  # a read-only home: run without an archive
    for stale in folder.glob(".spark-classes-*.tmp"):  # left by a JVM killed while writing (an hour is ample)
        try:
            if time.time() - stale.stat().st_mtime > 3600:
                stale.unlink()
        except OSError:
            pass
    tmp = folder / f".{ARCHIVE_PREFIX}{key}.{os.getpid()}.tmp"
    return ClassArchive(options=f"-XX:ArchiveClassesAtExit={tmp} {quiet}", tmp=tmp, final=final)


ARCHIVE_PREFIX = "spark-classes-"


def env_key(jars: Path) -> str:
    """The environment an archive belongs to: the pyspark installation (its jars folder)."""
    import hashlib

    return hashlib.sha256(str(jars).encode()).hexdigest()[:8]


def _env_file(archive: Path) -> Path:
    return archive.with_suffix(".env")  # the jars folder the archive was written for, to prune it when gone


def prune_archives(folder: Path, written: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the class archives that are no longer worth their ~190 MB, and return them: the older archives
    of the environment that just wrote ``written`` (replaced, not added), archives of environments whose
    pyspark is gone, archives no run used for STALE_DAYS, archives of the earlier naming (no environment),
    then the least recently used beyond KEEP_ARCHIVES. Only files of visguard's own naming are touched."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    archives = []
    for p in folder.glob(f"{ARCHIVE_PREFIX}*.jsa"):
        parts = p.stem[len(ARCHIVE_PREFIX) :].split("-")
        env_file = _env_file(p)
        try:
            jars = env_file.read_text(encoding="utf-8").strip() if env_file.is_file() else ""
            used = p.stat().st_mtime
        except OSError:
            continue
        stale = (
            len(parts) != 2  # the earlier naming, without the environment
            or not jars
            or not Path(jars).is_dir()  # that environment's pyspark was uninstalled or its venv removed
            or now - used > STALE_DAYS * 86400
            or (written is not None and p != written and parts[0] == written.stem[len(ARCHIVE_PREFIX) :][:8])
        )
        if stale:
            removed.append(p)
        else:
            archives.append((used, p))
    archives.sort(reverse=True)
    removed += [p for _, p in archives[KEEP_ARCHIVES:]]
    for p in removed:
        p.unlink(missing_ok=True)
        _env_file(p).unlink(missing_ok=True)
    return removed


def cache_entries(folder: Path | None = None) -> list[Path]:
    """Every file visguard wrote in its cache folder (class archives and their notes, code zips, JVM crash
    reports, temporaries): what ``visguard audit cache`` lists and ``--clear`` removes. Nothing else."""
    folder = folder or cache_dir()
    if not folder.is_dir():
        return []
    patterns = (f"{ARCHIVE_PREFIX}*.jsa", f"{ARCHIVE_PREFIX}*.env", f".{ARCHIVE_PREFIX}*.tmp",
                "visguard-code-*.zip", ".visguard-code-*.tmp", "jvm-error-*.log")  # fmt: skip
    return sorted({p for pat in patterns for p in folder.glob(pat) if p.is_file() and not p.is_symlink()})


def stop_session(spark, timeout: float = 120.0) -> None:
    """Stop the session; when its JVM is writing a class archive, wait for the JVM to exit (it writes the
    archive then, in about 20 s) and move the archive into place, atomically."""
    archive = archive_of(spark)
    if _is_connect(spark):
        spark.stop()
        return
    gateway = spark.sparkContext._gateway
    spark.stop()
    if not archive.writing:
        return
    tmp, final = archive.tmp, archive.final
    archive.tmp = None
    proc = getattr(gateway, "proc", None)
    try:
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()  # the gateway JVM exits on EOF of its stdin
            proc.wait(timeout)
        if proc is not None and proc.returncode == 0 and tmp.is_file() and tmp.stat().st_size > 0:
            import pyspark

            _env_file(final).write_text(str(Path(pyspark.__file__).parent / "jars") + "\n", encoding="utf-8")
            os.replace(tmp, final)
            prune_archives(final.parent, written=final)
    except (OSError, subprocess.TimeoutExpired):
        pass  # no archive this time; the next run tries again
    finally:
        tmp.unlink(missing_ok=True)
