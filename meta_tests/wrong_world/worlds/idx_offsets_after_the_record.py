"""mxnet's MXIndexedRecordIO.write_idx that records in .idx the byte offset where the record ends (the
next record's start), not where it starts.

Makes lib.mx-recordio-align8's holding half (the note's sizes give its .idx offsets 0, 5768, 12520,
19304) wrong: its holding-half test goes red.
"""
import mxnet.recordio as recordio


def write_idx(self, idx, buf):
    key = self.key_type(idx)
    self.write(buf)
    pos = self.tell()  # after the record
    self.fidx.write("%s\t%d\n" % (str(key), pos))
    self.idx[key] = pos
    self.keys.append(key)


def apply():
    recordio.MXIndexedRecordIO.write_idx = write_idx
