"""A bridge never outlives what drives it: the Java bridge halts when its input closes, even with a non-daemon thread
of the target's running, and when the process that started it is killed (SIGKILL: no `finally`, no reaper) while
the target is still computing an answer; so does the worker that runs a target in a process of its own.

The Java target is a tiny class compiled here against the real kafka-clients 3.9.1: its constructor starts a
non-daemon thread that never ends, and it never answers a problem with a topic named `block`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assigncheck.formats.reproducer import TargetRef
from assigncheck.targets.registry import load
from assigncheck.toolchains import java_build, maven
from tests.paths import ROOT

CLASS = "tiny.Lingering"
SOURCE = """package tiny;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.TopicPartition;

public class Lingering extends AbstractPartitionAssignor {
    public Lingering() {
        Thread forever = new Thread(() -> {
            while (true) {
                try { Thread.sleep(1000); } catch (InterruptedException e) { return; }
            }
        });
        forever.setDaemon(false);
        forever.start();
    }

    @Override
    public String name() { return "lingering"; }

    @Override
    public Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionsPerTopic,
                                                    Map<String, Subscription> subscriptions) {
        if (partitionsPerTopic.containsKey("block")) {
            while (true) {
                try { Thread.sleep(1000); } catch (InterruptedException e) { /* keep blocking */ }
            }
        }
        Map<String, List<TopicPartition>> out = new HashMap<>();
        for (String member : subscriptions.keySet()) out.put(member, new java.util.ArrayList<>());
        return out;
    }
}
"""
GONE_S = 120.0  # how long a process may take to go (a JVM halting on a busy machine): a hang guard, not a verdict
# The "gate": loads a target, says its program's pid, sends it a problem it never answers, and waits to be killed.
DRIVER = """import json, sys, time
from assigncheck.formats.reproducer import TargetRef
from assigncheck.targets.registry import load
from assigncheck.targets.worker import in_own_process

ref = TargetRef.parse(sys.argv[1])
target = in_own_process(ref, {}) if sys.argv[2] == "worker" else load(ref)
proc = target._start() if sys.argv[2] == "worker" else target._alive()
print(proc.pid, flush=True)
problem = {"format": 2, "id": 1, "problem": {"format": 1, "topics": {"block": 1},
                                             "members": [{"id": "a", "subscription": ["block"]}]}}
proc.stdin.write((json.dumps(problem) + "\\n").encode())
print("sent", flush=True)
time.sleep(3600)
"""


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lingering")
    (root / "src").mkdir()
    (root / "src" / "Lingering.java").write_text(SOURCE)
    _, javac = java_build.jdk()
    subprocess.run([javac, "-nowarn", "-d", str(root / "classes"), "-cp", ":".join(maven.jars(maven.CLIENTS)),
                    str(root / "src" / "Lingering.java")], check=True, capture_output=True)
    return root / "classes"


def _gone(pid: int) -> bool:
    """Exited (a zombie no one reaped yet counts: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def _waits_until_gone(pid: int) -> bool:
    deadline = time.monotonic() + GONE_S
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)  # leave nothing behind, then fail
    return False


def test_the_java_bridge_halts_when_its_input_closes(classes):
    target = load(TargetRef(f"java:{CLASS}", classpath=(str(classes),)))
    proc = target._alive()  # started, the class loaded: its non-daemon thread is running
    proc.stdin.close()
    try:
        assert proc.wait(timeout=GONE_S) == 0
    finally:
        target.close()


@pytest.mark.parametrize("how", ["java", "worker"])
def test_a_bridge_halts_when_its_gate_is_killed_mid_answer(classes, how, tmp_path):
    ref = TargetRef(f"java:{CLASS}", classpath=(str(classes),)) if how == "java" else TargetRef(
        "tests.targets.test_bridges_halt:blocking")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    gate = subprocess.Popen([sys.executable, str(driver), ref.key(), how], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    try:
        bridge = int(gate.stdout.readline())
        assert gate.stdout.readline().strip() == "sent"
        time.sleep(1)  # the call is under way: its input will never be read again
    finally:
        gate.kill()  # SIGKILL: nothing of the gate's runs after this
        gate.wait()
    assert _waits_until_gone(bridge), f"the {how} bridge {bridge} outlived its gate"


def blocking(problem: object) -> dict:
    """A Python target whose call never returns, with a non-daemon thread of its own."""
    import threading

    threading.Thread(target=time.sleep, args=(3600,)).start()
    time.sleep(3600)
    return {}


def test_the_worker_ends_when_its_input_closes_whatever_threads_the_target_left(tmp_path):
    from assigncheck.targets.worker import in_own_process

    target = in_own_process(TargetRef("tests.targets.test_bridges_halt:threads_left"), {})
    proc = target._start()
    request = {"format": 2, "id": 1, "problem": {"format": 1, "topics": {"t": 1},
                                                 "members": [{"id": "a", "subscription": ["t"]}]}}
    proc.stdin.write((json.dumps(request) + "\n").encode())
    proc.stdin.close()
    try:
        assert proc.wait(timeout=GONE_S) == 0
    finally:
        target.close()


def threads_left(problem: object) -> dict:
    """A Python target that answers, leaving a non-daemon thread behind."""
    import threading

    threading.Thread(target=time.sleep, args=(3600,)).start()
    return {"a": {"t": [0]}}
