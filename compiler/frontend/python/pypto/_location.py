"""Where in the user's code an op was written: the first frame outside pypto."""
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# Every recorded op asks for its location (DIA: ~6 000 ops), so the answers that depend only on a file name or a
# code object are kept: abspath per frame and a walk over a long kernel function's instruction positions per op
# were most of a large kernel's trace. Both caches are cleared when they grow large; a kernel traced again gets
# fresh code objects, so they would otherwise only grow.
_CACHE_LIMIT = 4096
_internal_by_filename = {}
_columns_by_code = {}  # id(code) -> (code, [1-based column or 0 per code unit]); the code is held so that its id
# is not reused by another code object while the entry exists


def _is_internal(filename):
    internal = _internal_by_filename.get(filename)
    if internal is None:
        if len(_internal_by_filename) >= _CACHE_LIMIT:
            _internal_by_filename.clear()
        internal = os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)
        _internal_by_filename[filename] = internal
    return internal


def _columns(code):
    entry = _columns_by_code.get(id(code))
    if entry is None or entry[0] is not code:
        if len(_columns_by_code) >= _CACHE_LIMIT:
            _columns_by_code.clear()
        try:
            # Python 3.11: the positions of each instruction (code unit).
            columns = [0 if position[2] is None else position[2] + 1 for position in code.co_positions()]
        except (AttributeError, ValueError):
            columns = []
        entry = (code, columns)
        _columns_by_code[id(code)] = entry
    return entry[1]


def user_location():
    """(file, line, column) of the innermost frame that is not pypto's own
    code. Column is 1-based, 0 when Python cannot tell."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return ("", 0, 0)
    columns = _columns(frame.f_code)
    index = frame.f_lasti // 2  # the instruction being executed
    column = columns[index] if 0 <= index < len(columns) else 0
    return (frame.f_code.co_filename, frame.f_lineno, column)


def user_frames(traceback):
    """The (file, line) of each traceback entry outside pypto, outermost first."""
    frames = []
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if not _is_internal(code.co_filename):
            frames.append((code.co_filename, traceback.tb_lineno))
        traceback = traceback.tb_next
    return frames
