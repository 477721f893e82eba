"""Where in the user's code an op was written: the first frame outside pypto."""
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _is_internal(filename):
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def user_location():
    """(file, line, column) of the innermost frame that is not pypto's own
    code. Column is 1-based, 0 when Python cannot tell."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return ("", 0, 0)
    column = 0
    try:
        # Python 3.11: positions of the instruction being executed.
        positions = frame.f_code.co_positions()
        index = frame.f_lasti // 2
        for i, position in enumerate(positions):
            if i == index:
                if position[2] is not None:
                    column = position[2] + 1
                break
    except (AttributeError, ValueError):
        pass
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
