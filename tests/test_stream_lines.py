"""The reference adapters read streamed bodies line by line with ``_http.StreamLines``: lines end
at CR LF, LF or CR only (the event-stream format's end-of-line), wherever the network cuts."""

from __future__ import annotations

import itertools

import httpx

from pytest_toolcall.reference._http import StreamLines

# every line ending the format allows, and inside the JSON the three separators JSON leaves raw
# (U+2028, U+2029, U+0085) next to multi-byte characters
BODY = ('data: {"text":"a\u2028b\u2029c\u0085d Voilà ☃"}\r\n\r\n'
        "data: {\"n\":1}\rdata: [DONE]\n\nlast").encode()
LINES = ['data: {"text":"a\u2028b\u2029c\u0085d Voilà ☃"}', "", 'data: {"n":1}', "data: [DONE]",
         "", "last"]


def _read(pieces: list[bytes]) -> list[str]:
    lines = StreamLines()
    out = [line for piece in pieces for line in lines.feed(piece)]
    return out + lines.close()


def test_the_lines_of_a_whole_body() -> None:
    assert _read([BODY]) == LINES


def test_unicode_separators_stay_inside_their_line() -> None:
    # the premise: httpx's iter_lines cuts there (str.splitlines), and the JSON breaks
    assert len(list(httpx.Response(200, content=BODY).iter_lines())) > len(LINES)
    assert '"a\u2028b\u2029c\u0085d' in _read([BODY])[0]


def test_any_one_or_two_cuts_give_the_same_lines() -> None:
    # a CR LF cut between CR and LF, a character cut between its bytes, a line cut anywhere
    for first, second in itertools.combinations(range(len(BODY) + 1), 2):
        pieces = [BODY[:first], BODY[first:second], BODY[second:]]
        assert _read(pieces) == LINES, pieces


def test_byte_by_byte() -> None:
    assert _read([BODY[i:i + 1] for i in range(len(BODY))]) == LINES


def test_a_cr_at_the_end_of_one_read_and_a_lf_first_in_the_next_end_one_line() -> None:
    assert _read([b"data: a\r", b"\ndata: b\r", b"\r\n"]) == ["data: a", "data: b", ""]


def test_a_body_ending_without_a_line_ending_ends_with_its_last_line() -> None:
    assert _read([b"data: a\n", b"data: b"]) == ["data: a", "data: b"]
    assert _read([b"data: a\n"]) == ["data: a"]
    assert _read([]) == []


def test_bytes_that_are_not_utf8_are_replaced_not_raised() -> None:
    assert _read([b"data: \xff\n"]) == ["data: \ufffd"]
