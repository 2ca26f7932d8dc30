"""TAP for the command-line tests: register cases with @case(name), run them with main()."""
import sys

_cases = []


def case(name):
    """Register the decorated function as the test case @name."""
    def wrap(fn):
        _cases.append((name, fn))
        return fn
    return wrap


def main():
    """Run every case in order, print TAP, and exit 1 if any failed."""
    print("TAP version 13")
    print(f"1..{len(_cases)}")
    failed = 0
    for i, (name, fn) in enumerate(_cases, 1):
        try:
            fn()
            print(f"ok {i} - {name}", flush=True)
        except Exception as e:  # noqa: BLE001 - report every failure as TAP
            failed += 1
            print(f"not ok {i} - {name}")
            for line in str(e).splitlines():
                print(f"# {line}")
            sys.stdout.flush()
    print(f"# {len(_cases) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
