"""``_CheckpointManager``: the checkpoint files of one prefix in a folder, oldest first to go
(MindSpore's ``mindspore.train.callback._CheckpointManager``, private there, used by its tests).

A file belongs to prefix ``p`` when it is ``p-<epoch>_<step>.<format>``: it starts with ``p-``,
ends with the format, and what lies between has no letter (so ``p_1-1_1.ckpt``, a second run's
file, is not ``p``'s). Removing a file that is gone warns and goes on, as in MindSpore.
"""
import os
import stat
import warnings

__all__ = []        # private, as in MindSpore


class _CheckpointManager:
    """The files of one prefix (``update_ckpoint_filelist``) and the removal of old ones."""

    def __init__(self, format="ckpt"):          # noqa: A002 - MindSpore's keyword
        self._ckpoint_filelist = []
        self._format = format

    @property
    def ckpoint_filelist(self):
        return self._ckpoint_filelist

    @property
    def ckpoint_num(self):
        return len(self._ckpoint_filelist)

    def update_ckpoint_filelist(self, directory, prefix):
        """List again the files of ``prefix`` in ``directory``."""
        suffix = "." + self._format
        self._ckpoint_filelist = [
            os.path.join(directory, name) for name in os.listdir(directory)
            if name.startswith(prefix + "-") and os.path.splitext(name)[1] == suffix
            and not any(c.isalpha() for c in name[len(prefix):-len(suffix)])]

    def remove_ckpoint_file(self, file_name):
        """Delete ``file_name`` (made writable first) and forget it."""
        try:
            os.chmod(file_name, stat.S_IWRITE)
            os.remove(file_name)
            self._ckpoint_filelist.remove(file_name)
        except (OSError, ValueError) as exc:
            warnings.warn(f"_CheckpointManager: could not remove the checkpoint file {file_name}: {exc}",
                          stacklevel=2)

    def remove_oldest_ckpoint_file(self):
        """Delete the file of the list modified longest ago."""
        self.remove_ckpoint_file(sorted(self._ckpoint_filelist, key=os.path.getmtime)[0])

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        """Of the files modified in the last ``minutes`` before ``cur_time``, delete all but the oldest."""
        recent = [f for f in self._ckpoint_filelist if cur_time - os.path.getmtime(f) < 60 * minutes]
        if recent:
            oldest = min(recent, key=os.path.getmtime)
            for name in recent:
                if name != oldest:
                    self.remove_ckpoint_file(name)
