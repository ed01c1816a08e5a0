# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A page's scripts and styles emptied before it is parsed (``drop_script_text``).

Modern pages carry half their bytes as inline scripts and styles (aeb's pages: 174 KB, 82 KB
without), and Lexbor's tokenizer reads them a character at a time, through the states that
find where a script ends: 15-20% of a parse, paid again by every re-parse. Nothing reads that
text but the JSON-LD, and the cleaning drops the elements anyway, so their text is cut from the
bytes first, found at memchr's pace.

The cut must leave the tree exactly as it was, less that text, so the scan follows the
tokenizer of the HTML standard wherever a ``<script>`` or ``<style>`` start tag can be misread:
comments (``-->``, ``--!>``, ``<!-->``), doctypes and bogus comments, tags whose quoted
attribute values hold ">", the elements whose text is never markup (``<title>``, ``<textarea>``,
``<xmp>``, ``<iframe>``, ``<noembed>``, ``<noframes>``), and a script's escaped states (``<!--
document.write("<script></script>") -->`` ends at the second ``</script>``). After ``<frameset>``
(where a script's start tag is ignored) or ``<plaintext>`` nothing is cut.

SVG and MathML need the tree, not only the tokenizer: inside them a ``<script>`` holds markup,
and a ``<p>`` can end them early. The scan counts the ``<svg>`` and ``<math>`` still open, never
fewer than the parser has (an end tag the parser may ignore inside an integration point, such
as SVG's ``<foreignObject>``, is not counted), and cuts nothing while one may be open. There it
reads only what both readings tokenize alike: it stops for good at a tag inside an integration
point, a raw-text element holding a "<", or a CDATA section that is not also a bogus comment.
Wherever the scan could be wrong it cuts less, never more. ``tests/extract/test_rawtext.py``
holds the tree equal to the tree of the page as it came, script and style text aside, on
thousands of generated pages and on every corpus page.

A script whose start tag may say ``ld+json`` keeps its text (``title.json_ld_texts`` reads it).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdlib cimport free, realloc
from libc.string cimport memchr, memcmp, memcpy

# what the scan does at the end of a start tag in HTML content, by tag name
DEF _OTHER = 0
DEF _SCRIPT = 1
DEF _STYLE = 2
DEF _RAW = 3  # text until its end tag, never markup, kept
DEF _STOP = 4  # <plaintext>, <frameset>: nothing after is cut
DEF _SVG = 5
DEF _MATH = 6
DEF _POINT = 8  # a flag: SVG's and MathML's elements whose content is read as HTML

# a script's states (the standard's "script data" states): data, escaped and double escaped,
# each of the last two plus 1 after a "-" and plus 2 after "--"
DEF _DATA = 0
DEF _ESCAPED = 1
DEF _DOUBLE = 4
DEF _DASH = 1
DEF _DASH_DASH = 2


# Byte classes, one load a byte: HTML whitespace (the input stream turns CR into LF before the
# tokenizer sees it), what ends a tag's name (whitespace, "/", ">"), an attribute's name (those
# and "="), an unquoted value (whitespace, ">"), and ASCII letters.
DEF _SPACE = 1
DEF _NAME_END = 2
DEF _ATTRIBUTE_END = 4
DEF _VALUE_END = 8
DEF _ALPHA = 16
cdef unsigned char _CLASS[256]
for _c in range(256):
    _CLASS[_c] = (
        (_SPACE | _NAME_END | _ATTRIBUTE_END | _VALUE_END) * (_c in b" \n\t\f\r")
        | (_NAME_END | _ATTRIBUTE_END) * (_c == 47)
        | (_NAME_END | _ATTRIBUTE_END | _VALUE_END) * (_c == 62)
        | _ATTRIBUTE_END * (_c == 61)
        | _ALPHA * (65 <= _c <= 90 or 97 <= _c <= 122)
    )


cdef inline bint _alpha(unsigned char c) noexcept nogil:
    return _CLASS[c] & _ALPHA


cdef inline bint _space(unsigned char c) noexcept nogil:
    return _CLASS[c] & _SPACE


cdef inline bint _ends_name(unsigned char c) noexcept nogil:
    return _CLASS[c] & _NAME_END


cdef inline bint _named(const unsigned char* p, Py_ssize_t length, const char* name) noexcept nogil:
    """Whether the ``length`` bytes at ``p`` spell ``name`` (lower case), ASCII case ignored."""
    cdef Py_ssize_t i = 0
    while name[i]:
        if i == length or (p[i] | 0x20) != <unsigned char>name[i]:
            return False
        i += 1
    return i == length


cdef inline Py_ssize_t _alpha_end(const unsigned char* p, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    while i < n and _alpha(p[i]):
        i += 1
    return i


cdef inline Py_ssize_t _find(const unsigned char* p, Py_ssize_t n, Py_ssize_t i, unsigned char c) noexcept nogil:
    """The index of the first ``c`` at or after ``i``, or ``n``."""
    cdef const unsigned char* q
    if i >= n:
        return n
    q = <const unsigned char*>memchr(p + i, c, n - i)
    return n if q == NULL else q - p


cdef inline Py_ssize_t _name_end(
    const unsigned char* p, Py_ssize_t n, Py_ssize_t i, const unsigned char* name, Py_ssize_t length
) noexcept nogil:
    """Where the tag name at ``i`` ends (the whitespace, "/" or ">" after it) if its letters
    spell the ``length`` letters at ``name``, ASCII case ignored; else -1 (a name that runs to
    the end of the page is text)."""
    cdef Py_ssize_t end = _alpha_end(p, n, i), k
    if end - i != length or end == n or not _ends_name(p[end]):
        return -1
    for k in range(length):
        if (p[i + k] | 0x20) != (name[k] | 0x20):
            return -1
    return end


cdef inline Py_ssize_t _script_name_end(const unsigned char* p, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    return _name_end(p, n, i, <const unsigned char*>b"script", 6)


cdef Py_ssize_t _comment_end(const unsigned char* p, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """Where a comment whose "<!--" ends at ``i`` is over (just after its close), or ``n``."""
    if i < n and p[i] == 62:  # "<!-->"
        return i + 1
    if i + 1 < n and p[i] == 45 and p[i + 1] == 62:  # "<!--->"
        return i + 2
    while True:
        i = _find(p, n, i, 45)
        if i + 1 >= n:
            return n
        if p[i + 1] != 45:
            i += 1
            continue
        i += 2
        while i < n and p[i] == 45:  # "--->": the dashes before ">" are the comment's
            i += 1
        if i < n and p[i] == 62:
            return i + 1
        if i + 1 < n and p[i] == 33 and p[i + 1] == 62:  # "--!>"
            return i + 2


cdef Py_ssize_t _tag_end(const unsigned char* p, Py_ssize_t n, Py_ssize_t i, bint* closed) noexcept nogil:
    """Just after the ">" of a tag whose name ends at ``i``, or -1 if the page ends first;
    ``closed[0]``: whether it ends "/>". The attributes are read as the tokenizer reads them:
    a ">" inside a quoted value does not end the tag, a quote inside a name or unquoted value
    quotes nothing."""
    cdef unsigned char c
    closed[0] = False
    while i < n:
        c = p[i]
        if _space(c):
            i += 1
        elif c == 62:
            return i + 1
        elif c == 47:  # "/": the tag ends "/>" or an attribute follows
            i += 1
            if i < n and p[i] == 62:
                closed[0] = True
                return i + 1
        else:  # an attribute's name (its first character may be "=")
            i += 1
            while i < n and not _CLASS[p[i]] & _ATTRIBUTE_END:
                i += 1
            while i < n and _space(p[i]):
                i += 1
            if i == n or p[i] != 61:
                continue  # no value
            i += 1
            while i < n and _space(p[i]):
                i += 1
            if i == n:
                return -1
            c = p[i]
            if c == 34 or c == 39:
                i = _find(p, n, i + 1, c) + 1
            else:
                while i < n and not _CLASS[p[i]] & _VALUE_END:
                    i += 1
    return -1


cdef Py_ssize_t _raw_end(
    const unsigned char* p, Py_ssize_t n, Py_ssize_t i, const unsigned char* name, Py_ssize_t length
) noexcept nogil:
    """Where the text of a style, title, ... element that starts at ``i`` ends: the "<" of its
    end tag (``name``, ``length`` letters: its start tag's), or ``n``."""
    while True:
        i = _find(p, n, i, 60)
        if i + 1 >= n:
            return n
        if p[i + 1] == 47 and _name_end(p, n, i + 2, name, length) >= 0:
            return i
        i += 1


cdef Py_ssize_t _script_end(const unsigned char* p, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """Where the text of a script that starts at ``i`` ends: the "<" of its ``</script>``, or
    ``n``. Text escaped with "<!--" ends only at a ``</script>`` outside any ``<script>`` it
    opens ("double escaped"); the states are the standard's, spelled out where they differ."""
    cdef int state = _DATA, group
    cdef Py_ssize_t end
    cdef unsigned char c
    while i < n:
        if state == _DATA:
            i = _find(p, n, i, 60)
            if i + 1 >= n:
                return n
            c = p[i + 1]
            if c == 47 and _script_name_end(p, n, i + 2) >= 0:
                return i
            if c == 33 and i + 3 < n and p[i + 2] == 45 and p[i + 3] == 45:  # "<!--"
                state = _ESCAPED + _DASH_DASH
                i += 4
            else:
                i += 1
            continue
        group = _ESCAPED if state < _DOUBLE else _DOUBLE
        c = p[i]
        if c == 45:  # "-", "--", "---", ...
            state = group + (_DASH if state == group else _DASH_DASH)
            i += 1
        elif c == 62 and state == group + _DASH_DASH:  # "-->": back to plain script text
            state = _DATA
            i += 1
        elif c == 60 and i + 1 < n and p[i + 1] == 47:  # "</": "</script" ends the script
            # (escaped) or the script it opened (double escaped)
            end = _script_name_end(p, n, i + 2)
            if end >= 0 and group == _ESCAPED:
                return i
            state = _ESCAPED if end >= 0 else group
            i = end + 1 if end >= 0 else i + 2
        elif c == 60 and group == _ESCAPED and i + 1 < n and _alpha(p[i + 1]):
            end = _script_name_end(p, n, i + 1)  # "<script" opens a script inside
            state = _DOUBLE if end >= 0 else _ESCAPED
            i = end + 1 if end >= 0 else i + 1
        else:
            state = group
            i += 1
    return n


cdef int _kind(const unsigned char* p, Py_ssize_t length) noexcept nogil:
    """What a tag of this name is to the scan (``_SCRIPT``, ``_RAW``, ...), ``_POINT`` added
    for an integration point (``<title>`` is one in SVG, and raw text in HTML). Told apart by
    length and first letter first: most tags are none of these."""
    cdef unsigned char first = p[0] | 0x20
    if length == 2:
        return _POINT if first == 109 and (p[1] | 0x20) in b"ions" else _OTHER  # mi mo mn ms
    if length == 3:
        if first == 115 and _named(p, 3, b"svg"):
            return _SVG
        return _RAW if first == 120 and _named(p, 3, b"xmp") else _OTHER
    if length == 4:
        if first == 109 and _named(p, 4, b"math"):
            return _MATH
        return _POINT if first == 100 and _named(p, 4, b"desc") else _OTHER
    if length == 5:
        if first == 115 and _named(p, 5, b"style"):
            return _STYLE
        if first == 116 and _named(p, 5, b"title"):
            return _RAW | _POINT
        return _POINT if first == 109 and _named(p, 5, b"mtext") else _OTHER
    if length == 6:
        if first == 115 and _named(p, 6, b"script"):
            return _SCRIPT
        return _RAW if first == 105 and _named(p, 6, b"iframe") else _OTHER
    if length == 7:
        return _RAW if first == 110 and _named(p, 7, b"noembed") else _OTHER
    if length == 8:
        if _named(p, 8, b"textarea") or _named(p, 8, b"noframes"):
            return _RAW
        return _STOP if _named(p, 8, b"frameset") else _OTHER
    if length == 9:
        return _STOP if _named(p, 9, b"plaintext") else _OTHER
    if length == 13:
        return _POINT if _named(p, 13, b"foreignobject") else _OTHER
    if length == 14:
        return _POINT if _named(p, 14, b"annotation-xml") else _OTHER
    return _OTHER


cdef bint _may_be_json_ld(const unsigned char* p, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    """Whether a script's start tag may give it the JSON-LD type: it holds "ld+json" (ASCII
    case ignored) or a character reference, which can spell anything ("ld&#x2B;json")."""
    cdef Py_ssize_t i
    if _find(p, end, start, 38) < end:  # "&"
        return True
    for i in range(start, end - 6):
        if (p[i] | 0x20) == 108 and _named(p + i, 7, b"ld+json"):
            return True
    return False


def drop_script_text(bytes data):
    """``data`` (a page's UTF-8 bytes) with the text of its scripts and styles cut (not of
    JSON-LD scripts), or ``data`` itself if it has none."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = len(data), i = 0, name_end, end, text_end, size, kept, at
    cdef Py_ssize_t* cuts = NULL  # (start, end) pairs
    cdef Py_ssize_t* grown
    cdef Py_ssize_t count = 0, capacity = 0
    cdef int svg = 0, math = 0, points = 0, kind
    cdef bint closed
    cdef unsigned char c
    cdef char* dest
    try:
        with nogil:
            while True:
                i = _find(p, n, i, 60)
                if i + 2 >= n:
                    break
                c = p[i + 1]
                if c == 33:  # "<!"
                    if i + 3 < n and p[i + 2] == 45 and p[i + 3] == 45:
                        i = _comment_end(p, n, i + 4)
                    elif (svg or math) and i + 8 < n and memcmp(p + i + 2, b"[CDATA[", 7) == 0:
                        # a CDATA section in SVG, a bogus comment in HTML: the same only
                        # where its first ">" is the one of "]]>"
                        end = _find(p, n, i + 9, 62)
                        if end == n or p[end - 1] != 93 or p[end - 2] != 93 or end - 2 < i + 9:
                            break
                        i = end + 1
                    else:  # a doctype or a bogus comment
                        i = _find(p, n, i + 2, 62) + 1
                elif c == 63:  # "<?": a bogus comment
                    i = _find(p, n, i + 2, 62) + 1
                elif c == 47:  # "</"
                    if _alpha(p[i + 2]):
                        name_end = _alpha_end(p, n, i + 2)
                        while name_end < n and not _ends_name(p[name_end]):
                            name_end += 1
                        end = _tag_end(p, n, name_end, &closed)
                        if end < 0:
                            break
                        if svg or math:
                            kind = _kind(p + i + 2, name_end - i - 2)
                            if kind & _POINT:
                                points -= points > 0
                            elif points == 0:
                                svg -= kind == _SVG and svg > 0
                                math -= kind == _MATH and math > 0
                        i = end
                    elif p[i + 2] == 62:
                        i += 3
                    else:
                        i = _find(p, n, i + 2, 62) + 1
                elif _alpha(c):  # a start tag
                    name_end = i + 1
                    while name_end < n and not _ends_name(p[name_end]):
                        name_end += 1
                    end = _tag_end(p, n, name_end, &closed)
                    if end < 0:
                        break
                    kind = _kind(p + i + 1, name_end - i - 1)
                    if kind == _STOP or points:  # (HTML inside an integration point)
                        break
                    if not closed:
                        svg += kind == _SVG
                        math += kind == _MATH
                        if (svg > 0 or math > 0) and (kind & _POINT) != 0:
                            points += 1
                    kind &= ~_POINT
                    if kind == _SCRIPT:
                        text_end = _script_end(p, n, end)
                    elif kind == _STYLE or kind == _RAW:
                        text_end = _raw_end(p, n, end, p + i + 1, name_end - i - 1)
                    else:
                        i = end
                        continue
                    if (svg or math) and _find(p, text_end, end, 60) < text_end:
                        break  # markup inside, if this is SVG's or MathML's element
                    if text_end > end and not (svg or math) and (
                        kind == _STYLE or (kind == _SCRIPT and not _may_be_json_ld(p, i, end))
                    ):
                        if count == capacity:
                            capacity = 2 * capacity + 16
                            grown = <Py_ssize_t*>realloc(cuts, 2 * capacity * sizeof(Py_ssize_t))
                            if grown == NULL:  # no memory: the page as it came
                                count = 0
                                break
                            cuts = grown
                        cuts[2 * count] = end
                        cuts[2 * count + 1] = text_end
                        count += 1
                    if text_end >= n:
                        break
                    i = text_end
                else:
                    i += 1
        if count == 0:
            return data
        size = n
        for at in range(count):
            size -= cuts[2 * at + 1] - cuts[2 * at]
        out = PyBytes_FromStringAndSize(NULL, size)
        dest = PyBytes_AS_STRING(out)
        kept = 0
        i = 0
        for at in range(count):
            memcpy(dest + kept, p + i, cuts[2 * at] - i)
            kept += cuts[2 * at] - i
            i = cuts[2 * at + 1]
        memcpy(dest + kept, p + i, n - i)
        return out
    finally:
        free(cuts)
