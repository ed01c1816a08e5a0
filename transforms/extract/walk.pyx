# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled walks over selectolax's Lexbor nodes: the per-node work the extractor repeats.

Visiting a node costs about the same in C as in selectolax's own loops (40-100 ns: the nodes
are scattered in memory); what a Python loop adds is a ``LexborNode`` object, a ``text()``
string or an ``attributes`` dict per node, and that is what these functions save. They read
Lexbor's node structures directly and never change the tree:

- ``size`` / ``own_size``: text lengths as ``len(node.text(strip=True, skip_empty=True))``
  (and ``deep=False``) give them, counted on the UTF-8 bytes without building the text;
- ``sort_body``: one walk of a body that sorts its elements into lists by tag id (a table
  from the caller), and finds the hidden elements and the schema.org article-body markers on
  the way (the two CSS queries they replace tested every selector on every element);
- ``attached``: the nodes still in the tree; ``attribute_values``: chosen attributes of many
  elements, without a dict per element; ``boilerplate_pending``: ``drop_boilerplate``'s
  first pass over its candidates, on the same attribute reads;
- ``link_stats``: ``scoring.LinkStats``' tree of the elements holding links, with the
  link text and link count of each;
- ``marked_text`` and ``render``: the layout's text, markers where blocks, lines and cells
  start and end read without inserting them into the tree, then the passes that turn them
  into line breaks (``layout``);
- ``holds_prose``: whether a subtree has an element whose own text is a paragraph of prose
  (``prose``), weighed on the bytes;
- ``mojibake_found``: ftfy's mojibake pattern searched only where a match can be (a string
  function, not a walk: ``repair.looks_like_mojibake``);
- ``label_candidates``: the few text nodes ``boilerplate.drop_labelled`` could act on, for
  its search of labels, calls and skip links (a page's whole text, searched, cost 5% of it).

The facts a rule needs per element (tag id, text length, link text, attributes, hidden-ness)
are each one call here, on any node: a new rule builds on these rather than on ``text()`` or
``attributes`` in a Python loop. Tables are indexed by Lexbor's tag ids, which are static for
the tag names Lexbor knows (``tests/extract/test_walk.py`` checks every table's).

How it reads the nodes without Lexbor's headers: selectolax 1.0.2 (pinned in ``setup.py``)
builds Lexbor 3.1 into its own extension and exports none of it, so this module declares the
few structure layouts it reads itself (below), and reaches a ``LexborNode``'s pointer through
the extension type's object layout. Both are checked by ``tests/extract/test_walk.py``, which
holds every function here to selectolax's Python API on thousands of generated pages: a
selectolax with other layouts fails those tests, not a corpus.

Attribute names: Lexbor numbers the names it knows (``class``, ``id``, ``style``, ...) with
small static ids and points other names to a hash entry holding the name. The static ids of the
names asked for are learned at import, by parsing an element that carries them.
"""

from libc.stdint cimport uint32_t, uint64_t, uintptr_t
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.string cimport memchr, memcmp, memcpy

from selectolax.lexbor import LexborHTMLParser

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil
    object PyBytes_FromStringAndSize(const char *v, Py_ssize_t len)

cdef extern from *:
    object PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)

cdef extern from *:
    """
    /* The parts of Lexbor 3.1's DOM structures this module reads (lexbor/dom/interfaces/
       node.h, element.h, attr.h, character_data.h; lexbor/core/str.h, hash.h), and the object
       layout of selectolax 1.0.2's LexborNode. */
    typedef struct walk_node walk_node;
    struct walk_node {
        void *events;
        uintptr_t local_name;
        uintptr_t prefix;
        uintptr_t ns;
        void *owner_document;
        walk_node *next;
        walk_node *prev;
        walk_node *parent;
        walk_node *first_child;
        walk_node *last_child;
        void *user;
        int type;
    };
    typedef struct {
        unsigned char *data;
        size_t length;
    } walk_str;
    typedef struct {
        walk_node node;
        walk_str data;
    } walk_text;
    typedef struct walk_attr walk_attr;
    struct walk_attr {
        walk_node node;
        uintptr_t upper_name;
        uintptr_t qualified_name;
        walk_str *value;
        void *owner;
        walk_attr *next;
        walk_attr *prev;
    };
    typedef struct {
        walk_node node;
        uintptr_t upper_name;
        uintptr_t qualified_name;
        walk_str *is_value;
        walk_attr *first_attr;
        walk_attr *last_attr;
    } walk_element;
    typedef struct {
        union {
            unsigned char *long_str;
            unsigned char short_str[16 + 1];
        } u;
        size_t length;
    } walk_name_entry;
    typedef struct {
        PyObject_HEAD
        void *vtab;
        walk_node *node;
        PyObject *parser;
        int is_fragment_root;
        int is_template_content;
    } walk_node_object;
    """
    ctypedef struct walk_node:
        uintptr_t local_name
        walk_node *next
        walk_node *prev
        walk_node *parent
        walk_node *first_child
        walk_node *last_child
        int type
    ctypedef struct walk_str:
        unsigned char *data
        size_t length
    ctypedef struct walk_text:
        walk_str data
    ctypedef struct walk_attr:
        walk_node node
        uintptr_t qualified_name
        walk_str *value
        walk_attr *next
    ctypedef struct walk_element:
        walk_attr *first_attr
    ctypedef union walk_name_union:
        unsigned char *long_str
        unsigned char short_str[17]
    ctypedef struct walk_name_entry:
        walk_name_union u
        size_t length

cdef extern from *:
    ctypedef class selectolax.lexbor.LexborNode [object walk_node_object]:
        cdef walk_node *node
        cdef object parser
        cdef int is_fragment_root
        cdef int is_template_content

DEF ELEMENT = 1  # Lexbor's node types
DEF SHORT_NAME = 16  # names up to this long are stored inside the hash entry
DEF STATIC_IDS = 65536  # static attribute ids are small; other ids are addresses
cdef uintptr_t TEXT = 2  # Lexbor's tag id of a text node


# --- text lengths ---------------------------------------------------------------------------


cdef inline uint32_t _code_point(const unsigned char *s, size_t i, size_t n) noexcept:
    """The code point of the (valid) UTF-8 sequence starting at ``s[i]``."""
    cdef unsigned char b = s[i]
    if b < 0x80:
        return b
    if b < 0xE0 and i + 1 < n:
        return ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
    if b < 0xF0 and i + 2 < n:
        return ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
    if i + 3 < n:
        return ((b & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (
            s[i + 3] & 0x3F)
    return 0xFFFD


cdef unsigned char _ASCII_SPACE[128]  # Py_UNICODE_ISSPACE of each ASCII byte, held here
for _c in range(128):
    _ASCII_SPACE[_c] = Py_UNICODE_ISSPACE(_c)


cdef inline size_t _width(unsigned char lead) noexcept:
    """The length of the UTF-8 sequence that starts with the byte ``lead``."""
    return 1 if lead < 0x80 else (2 if lead < 0xE0 else (3 if lead < 0xF0 else 4))


cdef inline bint _space_at(const unsigned char *s, size_t i, size_t n) noexcept:
    """Whether the character at ``s[i]`` is whitespace, as ``str.isspace`` has it."""
    return _ASCII_SPACE[s[i]] if s[i] < 0x80 else Py_UNICODE_ISSPACE(_code_point(s, i, n))


cdef void _strip(const unsigned char *s, size_t n, size_t *first, size_t *last) noexcept:
    """The bounds ``[first, last)`` of the UTF-8 ``s`` once ``str.strip()`` took the
    whitespace off its ends (Unicode whitespace, as Python's ``str.isspace`` has it). Runs of
    spaces (indentation: most of the whitespace between tags) are passed eight at a time."""
    cdef size_t start = 0, end = n, back
    cdef uint64_t word
    cdef unsigned char c
    while start < end:
        c = s[start]
        if c < 0x80:
            if not _ASCII_SPACE[c]:
                break
            start += 1
            while start + 8 <= end:
                memcpy(&word, s + start, 8)
                if word != 0x2020202020202020ULL:
                    break
                start += 8
        elif Py_UNICODE_ISSPACE(_code_point(s, start, n)):
            start += _width(c)
        else:
            break
    while end > start:
        c = s[end - 1]
        if c < 0x80:
            if not _ASCII_SPACE[c]:
                break
            end -= 1
        else:
            back = end - 1
            while back > start and (s[back] & 0xC0) == 0x80:
                back -= 1
            if not Py_UNICODE_ISSPACE(_code_point(s, back, n)):
                break
            end = back
    first[0], last[0] = start, end


cdef Py_ssize_t _code_points(const unsigned char *s, size_t start, size_t end) noexcept:
    """The number of code points of the UTF-8 ``s[start:end]``."""
    cdef Py_ssize_t count = end - start
    cdef uint64_t word
    # less the continuation bytes (10xxxxxx), eight bytes at a time: one bit per continuation
    # byte, moved to the byte's low bit and summed into the top byte by a multiplication
    # (portable: without -mpopcnt, a popcount is a library call)
    while start + 8 <= end:
        memcpy(&word, s + start, 8)
        word = (word & ~(word << 1) & 0x8080808080808080ULL) >> 7
        count -= <Py_ssize_t> ((word * 0x0101010101010101ULL) >> 56)
        start += 8
    while start < end:
        if (s[start] & 0xC0) == 0x80:
            count -= 1
        start += 1
    return count


cdef Py_ssize_t _stripped_length(const unsigned char *s, size_t n) noexcept:
    """The number of code points of the UTF-8 ``s`` once ``str.strip()`` took the whitespace
    off its ends."""
    cdef size_t start, end
    _strip(s, n, &start, &end)
    return _code_points(s, start, end)


cdef inline Py_ssize_t _text_length(walk_node *node) noexcept:
    cdef walk_text *text = <walk_text *> node
    if text.data.data == NULL:
        return 0
    return _stripped_length(text.data.data, text.data.length)


cdef inline walk_node *_next_in(walk_node *node, walk_node *top) noexcept:
    """The node after ``node`` in document order within ``top``'s subtree, or NULL."""
    if node.first_child != NULL:
        return node.first_child
    while node != top and node.next == NULL:
        node = node.parent
    if node == top:
        return NULL
    return node.next


cdef inline walk_node *_skip(walk_node *node, walk_node *top) noexcept:
    """The node after ``node``'s subtree in document order within ``top``'s, or NULL."""
    while node != top and node.next == NULL:
        node = node.parent
    if node == top:
        return NULL
    return node.next


cdef Py_ssize_t _size(walk_node *top) noexcept:
    cdef Py_ssize_t total = 0
    cdef walk_node *node = top.first_child
    if top.local_name == TEXT:
        total += _text_length(top)
    while node != NULL:
        if node.local_name == TEXT:
            total += _text_length(node)
        node = _next_in(node, top)
    return total


def size(LexborNode node) -> int:
    """``len(node.text(strip=True, skip_empty=True))``: the length of the text of ``node``'s
    subtree, each text node stripped of the whitespace at its ends."""
    return _size(node.node)


cdef bint _has_marker(const unsigned char *s, size_t n) noexcept:
    """Whether the UTF-8 ``s`` holds one of the layout's marker characters, U+FDD0 to U+FDD4
    (EF B7 90 to EF B7 94: a lead byte starts a sequence wherever it is, so no other
    character's bytes hold these)."""
    cdef const unsigned char *at = s
    cdef const unsigned char *end = s + n
    while True:
        at = <const unsigned char *> memchr(at, 0xEF, end - at)
        if at == NULL or at + 2 >= end:
            return False
        if at[1] == 0xB7 and 0x90 <= at[2] <= 0x94:
            return True
        at += 1


def size_and_markers(LexborNode node) -> tuple:
    """``(size(node), holds)``: ``holds`` tells whether a text node of ``node``'s subtree
    holds one of the layout's marker characters (U+FDD0 to U+FDD4; ``layout``), as
    ``any(m in node.text() for m in markers)`` does."""
    cdef walk_node *top = node.node
    cdef walk_node *at = top
    cdef walk_text *text
    cdef Py_ssize_t total = 0
    cdef bint holds = False
    while at != NULL:
        if at.local_name == TEXT:
            text = <walk_text *> at
            if text.data.data != NULL:
                total += _stripped_length(text.data.data, text.data.length)
                if not holds:
                    holds = _has_marker(text.data.data, text.data.length)
        at = _next_in(at, top)
    return total, holds


def own_size(LexborNode node) -> int:
    """``len(node.text(deep=False, strip=True, skip_empty=True))``: the same for the text
    nodes directly inside ``node``."""
    cdef walk_node *child = node.node.first_child
    cdef Py_ssize_t total = 0
    if node.node.local_name == TEXT:
        total += _text_length(node.node)
    while child != NULL:
        if child.local_name == TEXT:
            total += _text_length(child)
        child = child.next
    return total


def attached(list nodes) -> list:
    """The nodes of ``nodes`` that have a parent: ``[n for n in nodes if n.parent is not
    None]`` (removing a subtree unlinks every node of it), without a parent node object each."""
    cdef LexborNode node
    return [node for node in nodes if node.node.parent != NULL]


# --- attributes -----------------------------------------------------------------------------

# The attribute names this module can be asked about, by index: each one's static id (0 when
# Lexbor has none for it) and its bytes.
cdef list _NAMES = []  # (keeps the bytes that _name_text points into)
cdef uintptr_t _static_ids[64]
cdef const char *_name_text[64]
cdef size_t _name_length[64]
cdef dict _INDEX = {}


cdef int _name_index(str name) except -1:
    """The index of attribute ``name`` (lower case), learning its static id on first use."""
    cdef LexborNode element
    cdef walk_attr *attr
    index = _INDEX.get(name)
    if index is not None:
        return index
    if len(_NAMES) >= 64:
        raise ValueError("too many attribute names")
    element = LexborHTMLParser(f"<p {name}>").css_first("p")
    attr = (<walk_element *> element.node).first_attr
    ident = attr.qualified_name or attr.node.local_name
    index = len(_NAMES)
    encoded = name.encode()
    _NAMES.append(encoded)
    _static_ids[index] = ident if ident < STATIC_IDS else 0
    _name_text[index] = <const char *> (<bytes> encoded)
    _name_length[index] = len(encoded)
    _INDEX[name] = index
    return index


cdef inline bint _is_named(walk_attr *attr, int index) noexcept:
    """Whether ``attr``'s name (as ``attributes`` gives it) is name ``index``."""
    cdef uintptr_t ident = attr.qualified_name or attr.node.local_name
    cdef walk_name_entry *entry
    cdef const unsigned char *text
    if ident < STATIC_IDS:
        return ident == _static_ids[index]
    entry = <walk_name_entry *> ident
    if entry.length != _name_length[index]:
        return False
    if entry.length <= SHORT_NAME:
        text = &entry.u.short_str[0]
    else:
        text = entry.u.long_str
    return memcmp(text, _name_text[index], entry.length) == 0


cdef inline walk_attr *_find(walk_node *node, int index) noexcept:
    cdef walk_attr *attr
    if node.type != ELEMENT:
        return NULL
    attr = (<walk_element *> node).first_attr
    while attr != NULL:
        if _is_named(attr, index):
            return attr
        attr = attr.next
    return NULL


cdef inline object _value(walk_attr *attr):
    """The attribute's value as ``attributes`` gives it: None when it has none."""
    if attr.value == NULL or attr.value.data == NULL or attr.value.length == 0:
        return None
    return PyUnicode_DecodeUTF8(<const char *> attr.value.data, attr.value.length, "replace")


def attribute_values(list nodes, tuple names) -> list:
    """For each element of ``nodes``, None when it has no attributes, else a tuple of the
    values of attributes ``names`` (lower case): ``""`` for one without a value, None for one
    it does not have (``node.attributes.get(name)`` but for the empty value)."""
    cdef int count = len(names), i
    cdef int indexes[64]
    cdef LexborNode node
    cdef walk_attr *attr
    cdef list out = []
    if count > 64:
        raise ValueError("too many attribute names")
    for i in range(count):
        indexes[i] = _name_index(names[i])
    for node in nodes:
        if node.node.type != ELEMENT or (<walk_element *> node.node).first_attr == NULL:
            out.append(None)
            continue
        values = []
        for i in range(count):
            attr = _find(node.node, indexes[i])
            if attr == NULL:
                values.append(None)
            else:
                value = _value(attr)
                values.append("" if value is None else value)
        out.append(tuple(values))
    return out


cdef bint _has_ascii_nocase(
    const unsigned char *s, size_t n, const char *needle, size_t m
) noexcept:
    """Whether ``needle`` (lower-case ASCII) occurs in ``s``, ASCII case ignored."""
    cdef size_t i, j
    cdef unsigned char c
    if m > n:
        return False
    for i in range(n - m + 1):
        for j in range(m):
            c = s[i + j]
            if 0x41 <= c <= 0x5A:
                c += 0x20
            if c != <unsigned char> needle[j]:
                break
        else:
            return True
    return False


cdef bint _equals_ascii_nocase(walk_str *value, const char *text, size_t m) noexcept:
    cdef size_t j
    cdef unsigned char c
    if value == NULL or value.data == NULL or value.length != m:
        return False
    for j in range(m):
        c = value.data[j]
        if 0x41 <= c <= 0x5A:
            c += 0x20
        if c != <unsigned char> text[j]:
            return False
    return True


cdef bint _equals(walk_str *value, const char *text, size_t m) noexcept:
    if value == NULL or value.data == NULL or value.length != m:
        return False
    return memcmp(value.data, text, m) == 0


cdef int _HIDDEN = _name_index("hidden")
cdef int _ARIA_HIDDEN = _name_index("aria-hidden")
cdef int _STYLE = _name_index("style")
cdef int _ITEMPROP = _name_index("itemprop")


cdef bint _hidden(walk_node *node) noexcept:
    """The CSS selector ``[hidden], [aria-hidden="true"], [style*="display:none" i],
    [style*="display: none" i]``."""
    cdef walk_attr *attr = (<walk_element *> node).first_attr
    while attr != NULL:
        if _is_named(attr, _HIDDEN):
            return True
        if _is_named(attr, _ARIA_HIDDEN) and _equals(attr.value, "true", 4):
            return True
        if _is_named(attr, _STYLE) and attr.value != NULL and attr.value.data != NULL and (
            _has_ascii_nocase(attr.value.data, attr.value.length, "display:none", 12)
            or _has_ascii_nocase(attr.value.data, attr.value.length, "display: none", 13)
        ):
            return True
        attr = attr.next
    return False


cdef int _ROLE = _name_index("role")
cdef int _CLASS = _name_index("class")
cdef int _ID = _name_index("id")
cdef int _ITEMTYPE = _name_index("itemtype")


cdef inline object _text_of(walk_attr *attr):
    """The attribute's value as ``attribute_values`` gives it (``""`` for none); None for no
    attribute."""
    if attr == NULL:
        return None
    value = _value(attr)
    return "" if value is None else value


def boilerplate_pending(list nodes, const unsigned char[:] guarded, bint main, bint relaxed,
                        roles, dialog_roles, hidden_style, comment_schema) -> tuple:
    """``boilerplate.drop_boilerplate``'s first pass over its containers, in C (held equal to
    the Python by ``tests/extract/test_walk.py``): ``(pending, dialogs)``, where ``pending``
    lists ``(node, None)`` for a hidden element (unless ``relaxed``; ``hidden_style``
    searches the style) or, in ``main`` mode, a guarded tag (``guarded[tag id]``) or one
    whose role is in ``roles``, the ``mem_id`` of those of them whose role is in
    ``dialog_roles`` going to ``dialogs``; and, in ``main`` mode, ``(node, "class id")`` for
    an element with a class, an id or an itemtype, ``" comment"`` appended when its itemtype
    (else its itemprop) is one ``comment_schema`` finds. The strings are made only for the
    attributes a rule reads."""
    cdef list pending = []
    cdef set dialogs = set()
    cdef LexborNode node
    cdef walk_attr *attr
    cdef walk_attr *found[8]
    cdef int slots[8]
    cdef int i
    cdef size_t limit = guarded.shape[0]
    cdef uintptr_t tag
    cdef bint is_guarded, flagged
    slots[:] = [_HIDDEN, _ARIA_HIDDEN, _STYLE, _ROLE, _CLASS, _ID, _ITEMTYPE, _ITEMPROP]
    for node in nodes:
        tag = node.node.local_name
        is_guarded = main and tag < limit and guarded[tag]
        if node.node.type != ELEMENT or (<walk_element *> node.node).first_attr == NULL:
            if is_guarded:
                pending.append((node, None))
            continue
        for i in range(8):
            found[i] = NULL
        attr = (<walk_element *> node.node).first_attr
        while attr != NULL:
            for i in range(8):
                if found[i] == NULL and _is_named(attr, slots[i]):
                    found[i] = attr
                    break
            attr = attr.next
        role = _text_of(found[3])
        flagged = False
        if not relaxed:
            flagged = found[0] != NULL or (
                found[1] != NULL and _equals(found[1].value, "true", 4)
            )
            if not flagged and found[2] != NULL:
                flagged = bool(hidden_style(_text_of(found[2])))
        if not flagged and main:
            flagged = is_guarded or role in roles
        if flagged:
            pending.append((node, None))
            if main and role in dialog_roles:
                dialogs.add(<size_t> node.node)
        elif main and (found[4] != NULL or found[5] != NULL or found[6] != NULL):
            name = f"{_text_of(found[4]) or ''} {_text_of(found[5]) or ''}"
            schema = _text_of(found[6]) or _text_of(found[7])
            if schema and comment_schema(schema):
                name += " comment"
            pending.append((node, name))
    return pending, dialogs


cdef inline LexborNode _wrap(walk_node *node, object parser):
    cdef LexborNode wrapped = LexborNode.__new__(LexborNode)
    wrapped.node = node
    wrapped.parser = parser
    return wrapped


WITH_ATTRIBUTES = 0x80  # in sort_body's table: the element is listed only if it has attributes
cdef unsigned char _WITH_ATTRIBUTES = WITH_ATTRIBUTES


def sort_body(LexborNode root, const unsigned char[:] table, int lists) -> tuple:
    """One walk of ``root``'s subtree (itself included), in document order:

    - ``lists`` lists of elements: one whose tag id ``t`` has ``table[t] = k > 0`` goes to
      list ``k - 1``; with ``WITH_ATTRIBUTES`` added to ``k``, only if it has attributes;
    - the elements ``root.css(HIDDEN)`` would find (``[hidden]``, ``[aria-hidden="true"]``,
      a ``style`` with ``display:none`` or ``display: none``, ASCII case ignored), each once;
    - those ``root.css('[itemprop="articleBody" i]')`` would find.
    """
    cdef list found = [[] for _ in range(lists)]
    cdef list hidden = []
    cdef list marked = []
    cdef walk_node *top = root.node
    cdef walk_node *node = top
    cdef walk_attr *attr
    cdef uintptr_t tag
    cdef size_t limit = table.shape[0]
    cdef unsigned char entry
    cdef bint attributes
    cdef object parser = root.parser
    while node != NULL:
        if node.type == ELEMENT:
            tag = node.local_name
            attributes = (<walk_element *> node).first_attr != NULL
            entry = table[tag] if tag < limit else 0
            if entry and (attributes or not entry & _WITH_ATTRIBUTES):
                (<list> found[(entry & ~_WITH_ATTRIBUTES) - 1]).append(_wrap(node, parser))
            if attributes:
                if _hidden(node):
                    hidden.append(_wrap(node, parser))
                attr = _find(node, _ITEMPROP)
                if attr != NULL and _equals_ascii_nocase(attr.value, "articlebody", 11):
                    marked.append(_wrap(node, parser))
        node = _next_in(node, top)
    return found, hidden, marked


# --- links ----------------------------------------------------------------------------------


def node_at(LexborNode root, size_t nid) -> LexborNode:
    """The node whose ``mem_id`` is ``nid``: one recorded from ``root``'s document (by
    ``link_tree``), which must still be in memory (not removed since)."""
    return _wrap(<walk_node *> nid, root.parser)


def link_stats(LexborNode root, uintptr_t link_tag, dict parent_of, list order, dict chars,
               dict count):
    """``scoring.LinkStats``' tree, in one walk of ``root``'s subtree: each element of tag id
    ``link_tag`` with text is a link, its text length its own link text; an element holding a
    link (itself one, or an ancestor of one up to ``root``) gets, by ``mem_id``, its parent
    in ``parent_of`` (but ``root``, which the caller records), the link text and the number
    of links of its subtree in ``chars`` and ``count``; their ids are appended to ``order``
    parents first (the reverse of the order in which the walk leaves them)."""
    cdef walk_node *top = root.node
    cdef walk_node *node = top
    cdef Py_ssize_t *sums = NULL
    cdef Py_ssize_t *links = NULL
    cdef Py_ssize_t depth = 0, room = 0, n
    cdef void *grown
    cdef list left = []
    try:
        while True:
            if depth == room:
                room = max(2 * room, 64)
                grown = PyMem_Realloc(sums, room * sizeof(Py_ssize_t))
                if grown == NULL:
                    raise MemoryError()
                sums = <Py_ssize_t *> grown
                grown = PyMem_Realloc(links, room * sizeof(Py_ssize_t))
                if grown == NULL:
                    raise MemoryError()
                links = <Py_ssize_t *> grown
            sums[depth], links[depth] = 0, 0
            if node.local_name == link_tag and node.type == ELEMENT:
                n = _size(node)
                if n:
                    sums[depth], links[depth] = n, 1
            if node.first_child != NULL:
                node = node.first_child
                depth += 1
                continue
            while True:  # leaving node, and each ancestor it ends
                if links[depth]:
                    nid = <size_t> node
                    chars[nid] = sums[depth]
                    count[nid] = links[depth]
                    if depth:
                        parent_of[nid] = <size_t> node.parent
                        left.append(nid)
                if depth == 0:
                    break
                sums[depth - 1] += sums[depth]
                links[depth - 1] += links[depth]
                if node.next != NULL:
                    break
                node = node.parent
                depth -= 1
            if depth == 0:
                break
            node = node.next
        left.reverse()
        order.extend(left)
    finally:
        PyMem_Free(sums)
        PyMem_Free(links)


def within(dict parent_of, list order, root_id) -> set:
    """``scoring.LinkStats.within``'s pass: ``root_id`` and the ids of ``order`` (parents
    before children) whose parent (``parent_of``) is among them."""
    cdef set inside = {root_id}
    for nid in order:
        if parent_of[nid] in inside:
            inside.add(nid)
    return inside


def first_above(LexborNode node, LexborNode root, dict doomed, dict threads,
                Py_ssize_t most):
    """``boilerplate.drop_boilerplate``'s look up the tree: from ``node``'s parent up to
    ``root``, the ``mem_id`` of the first element in ``doomed`` or ``threads`` (by
    ``mem_id``), or None; -1 when more than ``most`` steps up were taken (a step that reaches
    the answer counts, and the step past ``root``)."""
    cdef walk_node *up = node.node.parent
    cdef walk_node *top = root.node
    cdef Py_ssize_t steps = 0
    while up != NULL:
        key = <size_t> up
        if key in doomed or key in threads:
            return key
        up = NULL if up == top else up.parent
        steps += 1
        if steps > most:
            return -1
    return None


def prose_holder(LexborNode root, uintptr_t p_tag, dict link_chars, double share,
                 double floor):
    """``scoring.refine_to_prose``'s choice: the weight of each ``<p>`` (tag id ``p_tag``) in
    ``root``'s subtree, itself included (as ``root.css("p")`` finds them), is its ``size``
    minus its link text (``link_chars``, by ``mem_id``), those over 0 counted; None when
    their total is ``floor`` or less, else the deepest element of the subtree (``root`` if
    none) whose ``<p>`` weigh ``share`` of the total or more (such elements nest, ``share``
    being over half: the deepest is one)."""
    cdef walk_node *top = root.node
    cdef walk_node *node = top
    cdef walk_node *best = top
    cdef double *weights = NULL
    cdef double *sums = NULL
    cdef Py_ssize_t count = 0, size = 0, taken = 0, depth = 0, best_depth = 0, room = 0
    cdef double total = 0.0, w, threshold
    cdef void *grown
    try:
        while node != NULL:  # each <p>'s weight, in document order
            if node.local_name == p_tag and node.type == ELEMENT:
                if count == size:
                    size = max(2 * size, 64)
                    grown = PyMem_Realloc(weights, size * sizeof(double))
                    if grown == NULL:
                        raise MemoryError()
                    weights = <double *> grown
                chars = link_chars.get(<size_t> node)
                w = _size(node) - (<double> chars if chars is not None else 0.0)
                weights[count] = w if w > 0 else 0.0
                if w > 0:
                    total += w
                count += 1
            node = _next_in(node, top)
        if total <= floor:
            return None
        threshold = share * total
        # each element's sum left when the walk leaves it, through a stack of open elements
        node = top
        while True:
            if depth == room:
                room = max(2 * room, 64)
                grown = PyMem_Realloc(sums, room * sizeof(double))
                if grown == NULL:
                    raise MemoryError()
                sums = <double *> grown
            sums[depth] = 0.0
            if node.local_name == p_tag and node.type == ELEMENT:
                sums[depth] = weights[taken]
                taken += 1
            if node.first_child != NULL:
                node = node.first_child
                depth += 1
                continue
            while True:  # leaving node, and each ancestor it ends
                if sums[depth] >= threshold and depth > best_depth:
                    best, best_depth = node, depth
                if depth == 0:
                    break
                sums[depth - 1] += sums[depth]
                if node.next != NULL:
                    break
                node = node.parent
                depth -= 1
            if depth == 0:
                break
            node = node.next
        return _wrap(best, root.parser)
    finally:
        PyMem_Free(weights)
        PyMem_Free(sums)


DEF TEXT_TYPE = 3  # Lexbor's node type of a text node


cdef Py_ssize_t _own_size(walk_node *node) noexcept:
    """``own_size``: the text nodes directly in ``node`` (itself if one), stripped."""
    cdef walk_node *child = node.first_child
    cdef Py_ssize_t total = 0
    if node.local_name == TEXT:
        total += _text_length(node)
    while child != NULL:
        if child.local_name == TEXT:
            total += _text_length(child)
        child = child.next
    return total


def deepest_majority(LexborNode body, dict sizes, dict link_chars, Py_ssize_t body_size,
                     double body_weight, double link_weight, double threshold, int most):
    """``scoring.choose_root``'s descent from ``body`` (of size ``body_size`` and weight
    ``body_weight``): into the child (as ``iter()`` gives them: every node but text) whose
    weight, its text length with link text (``link_chars``, by ``mem_id``) counting
    ``link_weight``, is ``threshold`` or more, while there is one; a level's children are
    weighed in order until one is, or until those left cannot be. Sizes come from the memo
    ``sizes`` (by ``mem_id``), are measured and kept there if missing, and the last child's
    is its parent's less its siblings' and the parent's own text, kept there too. The
    element reached; None when the descent passes ``most`` levels."""
    cdef walk_node *node = body.node
    cdef walk_node *child
    cdef walk_node *last
    cdef walk_node *chosen
    cdef Py_ssize_t node_size = body_size, n, before
    cdef double node_weight = body_weight, remaining, w, links
    cdef int level
    for level in range(most + 1):
        if level == most:
            return None
        remaining, chosen, before = node_weight, NULL, 0
        last = node.last_child
        while last != NULL and last.type == TEXT_TYPE:
            last = last.prev
        child = node.first_child
        while child != NULL:
            if child.type == TEXT_TYPE:
                child = child.next
                continue
            key = <size_t> child
            if child == last:
                n = node_size - before - _own_size(node)
                sizes[key] = n
            else:
                memo = sizes.get(key)
                if memo is None:
                    n = _size(child)
                    sizes[key] = n
                else:
                    n = memo
            before += n
            chars = link_chars.get(key)
            links = <double> chars if chars is not None else 0.0
            if links > n:
                links = n
            w = (n - links) + link_weight * links
            if w >= threshold:
                chosen, node_weight, node_size = child, w, n
                break
            remaining -= w
            if remaining < threshold:
                break
            if child == last:
                break
            child = child.next
        if chosen == NULL:
            break
        node = chosen
    return _wrap(node, body.parser)


# --- layout markers -------------------------------------------------------------------------

cdef extern from *:
    """
    typedef struct { char *data; size_t length, size; } walk_buffer;
    """
    ctypedef struct walk_buffer:
        char *data
        size_t length
        size_t size


cdef int _append(walk_buffer *out, const char *data, size_t length) except -1:
    cdef size_t size
    cdef char *grown
    if out.length + length > out.size:
        size = max(out.size * 2, out.length + length, 4096)
        grown = <char *> PyMem_Realloc(out.data, size)
        if grown == NULL:
            raise MemoryError()
        out.data, out.size = grown, size
    if length:
        memcpy(out.data + out.length, data, length)
    out.length += length
    return 0



cdef int _append_pre(walk_buffer *out, walk_node *pre, const char *para, size_t para_len) except -1:
    """``layout._protect_pre``'s replacement text for ``pre``: its text with the newlines at
    its ends removed and its spaces, tabs and line breaks protected, between two block
    markers."""
    cdef walk_buffer raw
    cdef walk_node *node = pre.first_child
    cdef walk_text *text
    cdef size_t start, end, i
    cdef unsigned char c
    raw.data, raw.length, raw.size = NULL, 0, 0
    try:
        while node != NULL:
            if node.local_name == TEXT:
                text = <walk_text *> node
                if text.data.data != NULL:
                    _append(&raw, <const char *> text.data.data, text.data.length)
            node = _next_in(node, pre)
        start, end = 0, raw.length
        while start < end and raw.data[start] == b'\n':
            start += 1
        while end > start and raw.data[end - 1] == b'\n':
            end -= 1
        _append(out, para, para_len)
        i = start
        while i < end:
            c = raw.data[i]
            if c == b'\r' and i + 1 < end and raw.data[i + 1] == b'\n':
                i += 1
                c = b'\n'
            if c == b' ':
                _append(out, "\xef\xb7\x93", 3)  # PRE_SPACE, U+FDD3
            elif c == b'\t':
                _append(out, "\xef\xb7\x94", 3)  # PRE_TAB, U+FDD4
            elif c == b'\n':
                _append(out, "\xef\xb7\x91", 3)  # LINE, U+FDD1
            else:
                _append(out, <const char *> &raw.data[i], 1)
            i += 1
        _append(out, para, para_len)
    finally:
        PyMem_Free(raw.data)
    return 0


def marked_text(LexborNode root, const unsigned char[:] kinds, uintptr_t pre_tag,
                bytes para, bytes line, bytes cell) -> str:
    """``root.text()`` as it reads once ``layout.mark_blocks`` has marked ``root``'s subtree,
    leaving the tree as it is. ``kinds[t]`` is the kind of tag id ``t``: 1 a block (``para``
    before and after), 2 a line (``line`` before and after), 3 a cell (``cell`` before), 4 a
    ``<br>`` (``line`` instead). A ``<pre>`` (tag id ``pre_tag``) below ``root`` is its
    protected text between ``para`` markers; ``root`` itself is read as it is."""
    cdef walk_buffer out
    cdef walk_node *top = root.node
    cdef walk_node *node
    cdef walk_node *up
    cdef walk_text *text
    cdef uintptr_t tag
    cdef size_t limit = kinds.shape[0]
    cdef unsigned char kind
    cdef const char *p = para
    cdef const char *l = line
    cdef const char *c = cell
    cdef size_t np = len(para), nl = len(line), nc = len(cell)
    out.data, out.length, out.size = NULL, 0, 0
    try:
        if top.local_name == TEXT:
            text = <walk_text *> top
            if text.data.data != NULL:
                _append(&out, <const char *> text.data.data, text.data.length)
        node = top.first_child
        while node != NULL:
            tag = node.local_name
            if tag == TEXT:
                text = <walk_text *> node
                if text.data.data != NULL:
                    _append(&out, <const char *> text.data.data, text.data.length)
            elif node.type == ELEMENT:
                if tag == pre_tag:
                    _append_pre(&out, node, p, np)
                    node = _skip(node, top)
                    continue
                kind = kinds[tag] if tag < limit else 0
                if kind == 1:
                    _append(&out, p, np)
                elif kind == 2 or kind == 4:
                    _append(&out, l, nl)
                elif kind == 3:
                    _append(&out, c, nc)
            if node.first_child != NULL:
                node = node.first_child
                continue
            # leaving node, and every ancestor whose last child it ends: their closing markers
            while True:
                if node.type == ELEMENT and node.local_name < limit:
                    kind = kinds[node.local_name]
                    if kind == 1:
                        _append(&out, p, np)
                    elif kind == 2:
                        _append(&out, l, nl)
                if node.next != NULL or node.parent == top or node.parent == NULL:
                    break
                node = node.parent
            if node.next == NULL:
                break
            node = node.next
        return PyUnicode_DecodeUTF8(out.data, out.length, "replace")
    finally:
        PyMem_Free(out.data)


# --- the layout's rendering -----------------------------------------------------------------

cdef extern from "Python.h":
    Py_UCS4 *PyUnicode_AsUCS4Copy(object text) except NULL
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

from cpython.mem cimport PyMem_Malloc

DEF BLANK = 0xFDD0
DEF LINE = 0xFDD1
DEF CELL = 0xFDD2
DEF PRE_SPACE = 0xFDD3
DEF PRE_TAB = 0xFDD4


cdef Py_ssize_t _words(Py_UCS4 *a, Py_ssize_t n) noexcept:
    """``" ".join(text.split())`` in place; the new length."""
    cdef Py_ssize_t i = 0, out = 0
    while i < n:
        while i < n and Py_UNICODE_ISSPACE(a[i]):
            i += 1
        if i == n:
            break
        if out:
            a[out] = 0x20
            out += 1
        while i < n and not Py_UNICODE_ISSPACE(a[i]):
            a[out] = a[i]
            out += 1
            i += 1
    return out


cdef Py_ssize_t _drop_before(Py_UCS4 *a, Py_ssize_t n, Py_UCS4 drop, Py_UCS4 mark) noexcept:
    """``text.replace(drop + mark, mark)`` in place (``drop`` != ``mark``)."""
    cdef Py_ssize_t i, out = 0
    for i in range(n):
        if a[i] == drop and i + 1 < n and a[i + 1] == mark:
            continue
        a[out] = a[i]
        out += 1
    return out


cdef Py_ssize_t _drop_after(Py_UCS4 *a, Py_ssize_t n, Py_UCS4 mark, Py_UCS4 drop) noexcept:
    """``text.replace(mark + drop, mark)`` in place (``drop`` != ``mark``)."""
    cdef Py_ssize_t i, out = 0
    cdef Py_UCS4 previous = 0
    for i in range(n):
        if a[i] == drop and previous == mark:
            previous = a[i]
            continue
        previous = a[i]
        a[out] = a[i]
        out += 1
    return out


cdef Py_ssize_t _squeeze(Py_UCS4 *a, Py_ssize_t n, Py_UCS4 mark) noexcept:
    """Each run of ``mark`` made one, in place."""
    cdef Py_ssize_t i, out = 0
    for i in range(n):
        if a[i] == mark and out and a[out - 1] == mark:
            continue
        a[out] = a[i]
        out += 1
    return out


cdef Py_ssize_t _lines(Py_UCS4 *a, Py_ssize_t n) noexcept:
    """On a text whose spaces are single and inside it (``_words``' result), in place and in
    one pass: ``_drop_before(a, n, 0x20, LINE)``, ``_drop_after(a, n, LINE, 0x20)``,
    ``_squeeze(a, n, LINE)``, then the markers made line breaks, runs of three or more
    breaks made two (``render``'s passes). A space's neighbours are no spaces, so the
    passes' tests read the neighbours it has in the text as given."""
    cdef Py_ssize_t i, out = 0
    cdef Py_UCS4 c, before = 0, kept = 0  # the character before, the last one the squeeze kept
    for i in range(n):
        c = a[i]
        if c == 0x20 and ((i + 1 < n and a[i + 1] == LINE) or before == LINE):
            before = c
            continue
        before = c
        if c == LINE and kept == LINE:
            continue
        kept = c
        if c == LINE or c == BLANK:
            if out >= 2 and a[out - 1] == 0x0A and a[out - 2] == 0x0A:
                continue
            a[out] = 0x0A
        else:
            a[out] = c
        out += 1
    return out


def render(str text) -> str:
    """``layout.render``'s passes over a marked text, in C (``tests/extract/test_walk.py``
    holds the two equal): whitespace collapsed, spaces next to markers dropped, runs of markers
    squeezed, markers turned into line breaks and cell separators."""
    cdef Py_ssize_t n = len(text), i, out, start, end, cells = 0
    cdef Py_UCS4 *a = PyUnicode_AsUCS4Copy(text)
    cdef Py_UCS4 *b = NULL
    cdef bint has_cell = False
    try:
        n = _words(a, n)
        for i in range(n):
            if a[i] == CELL:
                has_cell = True
                break
        if has_cell:
            n = _drop_before(a, n, 0x20, CELL)
            n = _drop_after(a, n, CELL, 0x20)
            n = _squeeze(a, n, CELL)
            n = _drop_after(a, n, LINE, CELL)
            n = _drop_before(a, n, CELL, LINE)
            start, end = 0, n
            while start < end and a[start] == CELL:
                start += 1
            while end > start and a[end - 1] == CELL:
                end -= 1
            for i in range(start, end):
                if a[i] == CELL:
                    cells += 1
            b = <Py_UCS4 *> PyMem_Malloc((end - start + 2 * cells + 1) * sizeof(Py_UCS4))
            if b == NULL:
                raise MemoryError()
            out = 0
            for i in range(start, end):
                if a[i] == CELL:
                    b[out] = 0x20
                    b[out + 1] = 0x7C
                    b[out + 2] = 0x20
                    out += 3
                else:
                    b[out] = a[i]
                    out += 1
            PyMem_Free(a)
            a, b, n = b, NULL, out
        if has_cell:  # (the cells' " | " may stand next to other spaces)
            n = _drop_before(a, n, 0x20, LINE)
            n = _drop_after(a, n, LINE, 0x20)
            n = _squeeze(a, n, LINE)
            out = 0
            for i in range(n):  # markers to line breaks; runs of three or more breaks made two
                if a[i] == LINE or a[i] == BLANK:
                    if out >= 2 and a[out - 1] == 0x0A and a[out - 2] == 0x0A:
                        continue
                    a[out] = 0x0A
                else:
                    a[out] = a[i]
                out += 1
        else:
            out = _lines(a, n)
        start, end = 0, out
        while start < end and Py_UNICODE_ISSPACE(a[start]):
            start += 1
        while end > start and Py_UNICODE_ISSPACE(a[end - 1]):
            end -= 1
        for i in range(start, end):
            if a[i] == PRE_SPACE:
                a[i] = 0x20
            elif a[i] == PRE_TAB:
                a[i] = 0x09
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, a + start, end - start)
    finally:
        PyMem_Free(a)
        PyMem_Free(b)


def holds_tag(LexborNode root, const unsigned char[:] table) -> bool:
    """Whether an element below ``root`` (not ``root`` itself) has a tag id ``t`` such that
    ``table[t]`` is set."""
    cdef walk_node *top = root.node
    cdef walk_node *node = top.first_child
    cdef size_t limit = table.shape[0]
    while node != NULL:
        if node.type == ELEMENT and node.local_name < limit and table[node.local_name]:
            return True
        node = _next_in(node, top)
    return False


# --- prose ----------------------------------------------------------------------------------


cdef bint _own_text_is_prose(walk_node *node, double prose, double cjk_weight,
                             Py_ssize_t cjk_chars, const uint32_t[:, :] ranges) noexcept:
    """``prose.is_prose(node.text(deep=False, strip=True))``: the text nodes directly in
    ``node``, each stripped, joined: ``PROSE_CHARS`` characters or more, or that weight with
    its CJK characters (code points in ``ranges``) counting ``cjk_weight`` more, when it has
    ``cjk_chars`` characters or more and some non-ASCII."""
    cdef walk_node *child = node.first_child
    cdef walk_text *text
    cdef Py_ssize_t n = 0, cjk = 0
    cdef size_t i, last
    cdef bint ascii = True
    cdef const unsigned char *s
    cdef uint32_t cp
    cdef Py_ssize_t r
    while child != NULL:
        if child.local_name == TEXT:
            text = <walk_text *> child
            if text.data.data != NULL:
                n += _text_length(child)
        child = child.next
    if n >= prose:
        return True
    if n < cjk_chars:
        return False
    child = node.first_child
    while child != NULL:  # the CJK characters, inside each text node's stripped part
        if child.local_name == TEXT and (<walk_text *> child).data.data != NULL:
            s = (<walk_text *> child).data.data
            _strip(s, (<walk_text *> child).data.length, &i, &last)
            while i < last:
                if s[i] < 0x80:
                    i += 1
                    continue
                ascii = False
                cp = _code_point(s, i, last)
                for r in range(ranges.shape[0]):
                    if ranges[r, 0] <= cp <= ranges[r, 1]:
                        cjk += 1
                        break
                i += _width(s[i])
        child = child.next
    if ascii:
        return False
    return n + cjk_weight * cjk >= prose


def holds_prose(LexborNode root, const unsigned char[:] holders, double prose, double cjk_weight,
                Py_ssize_t cjk_chars, const uint32_t[:, :] ranges) -> bool:
    """Whether ``root`` or an element in its subtree with a tag id ``t`` such that
    ``holders[t]`` is set has own text that is prose (see ``_own_text_is_prose``)."""
    cdef walk_node *top = root.node
    cdef walk_node *node = top
    cdef size_t limit = holders.shape[0]
    if _own_text_is_prose(top, prose, cjk_weight, cjk_chars, ranges):
        return True
    node = top.first_child
    while node != NULL:
        if node.type == ELEMENT and node.local_name < limit and holders[node.local_name]:
            if _own_text_is_prose(node, prose, cjk_weight, cjk_chars, ranges):
                return True
        node = _next_in(node, top)
    return False


# --- ftfy's mojibake pattern, tried where it can match ----------------------------------------

cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void *PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void *data, Py_ssize_t index) nogil

DEF FIRST = 1
DEF SECOND = 2
DEF LONE = 4


def mojibake_found(str text, const unsigned char[:] table, object search, Py_ssize_t before,
                   Py_ssize_t longest) -> bool:
    """Whether ``search`` (a pattern's ``search``) finds a match in ``text``, tried only around
    the places a match must hold: a character flagged ``LONE`` in ``table`` (indexed by code
    point, 0 past its end), or one flagged ``FIRST`` followed by one flagged ``SECOND``. Each
    place ``p`` (the lone character, or the first of the two) is taken to lie at most
    ``before`` characters into its match, and the match to end before ``p + longest``; the
    windows ``[p - before, p + longest)`` are merged where they meet and searched once each.
    ``repair.looks_like_mojibake`` builds the table from ftfy's classes and holds this to
    ``ftfy.badness.is_bad``."""
    cdef Py_ssize_t n = len(text), size = table.shape[0], i, place
    cdef Py_ssize_t start = 0, end = -1
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    cdef unsigned char flags, previous = 0
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c < 0x80:
            previous = 0
            continue
        flags = table[c] if c < <Py_UCS4> size else 0
        if flags & LONE:
            place = i
        elif previous & FIRST and flags & SECOND:
            place = i - 1
        else:
            previous = flags
            continue
        previous = flags
        if end >= 0 and place - before <= end:
            end = place + longest
            continue
        if end >= 0 and search(text, start, min(end, n)) is not None:
            return True
        start, end = max(place - before, 0), place + longest
    return end >= 0 and search(text, start, min(end, n)) is not None


# --- the character policy's suspects ----------------------------------------------------------

from libc.stdint cimport uint8_t, uint16_t


def suspect_found(str text, const unsigned char[:] looked_at) -> bool:
    """Whether ``text`` holds a character beyond U+FFFF, or one of the Basic Multilingual
    Plane whose bit is set in ``looked_at`` (8,192 bytes: bit ``c & 7`` of byte ``c >> 3``
    for character ``c``): ``characters.suspect``'s search, one test per character."""
    cdef Py_ssize_t n = len(text), i
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef const uint8_t *one
    cdef const uint16_t *two
    cdef const uint32_t *four
    cdef uint32_t c
    cdef unsigned char low[256]
    if looked_at.shape[0] < 8192:
        raise ValueError("looked_at must cover the Basic Multilingual Plane")
    if kind == 1:
        for i in range(256):
            low[i] = looked_at[i >> 3] & (1 << (i & 7))
        one = <const uint8_t *> data
        for i in range(n):
            if low[one[i]]:
                return True
        return False
    if kind == 2:
        two = <const uint16_t *> data
        for i in range(n):
            c = two[i]
            if looked_at[c >> 3] & (1 << (c & 7)):
                return True
        return False
    four = <const uint32_t *> data
    for i in range(n):
        c = four[i]
        if c > 0xFFFF or looked_at[c >> 3] & (1 << (c & 7)):
            return True
    return False


# --- class and id names -----------------------------------------------------------------------

DEF NAME_SUBSTRING = 0  # the kinds of names.classify_names' words
DEF NAME_WORD = 1
DEF NAME_CONTENT = 2
DEF NAME_COMMENT = 3
DEF NAME_BODY = 4
DEF NAME_HIDDEN = 5


cdef inline bint _at_edge(int kind, void *data, Py_ssize_t n, Py_ssize_t pos) noexcept:
    """``names._at_word_edge``: ``pos`` is outside the text, or ``-``, ``_`` or whitespace."""
    cdef Py_UCS4 c
    if pos < 0 or pos >= n:
        return True
    c = PyUnicode_READ(kind, data, pos)
    return c == 0x2D or c == 0x5F or Py_UNICODE_ISSPACE(c)


cdef inline bint _spaced(int kind, void *data, Py_ssize_t n, Py_ssize_t pos) noexcept:
    """Outside the text, or whitespace at ``pos`` (``names._is_token``'s ends)."""
    return pos < 0 or pos >= n or Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, pos))


def name_matches(list matches, const unsigned char[:] kinds, str text, list starts,
                 bint bodies) -> tuple:
    """``names.classify_names``' pass over the automaton's ``matches`` (``(word, start,
    end)`` in ``text``, the names joined by newlines, name ``i`` starting at ``starts[i]``;
    ``kinds[word]``: the word's kind). Returns, by name index: the names with a boilerplate
    word (a whole word for ``NAME_WORD``s: ``-``, ``_`` or whitespace around it) and those
    with a content word (sets); where each name's comment and content words start (dicts of
    lists, in the matches' order); the names with a body name as a whole token (a set, empty
    unless ``bodies``); and the names with a hidden class word (a set)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), count = len(starts), start, end, low, high, middle, i
    cdef Py_ssize_t *at = <Py_ssize_t *> PyMem_Malloc((count + 1) * sizeof(Py_ssize_t))
    cdef unsigned char word_kind
    cdef set boilerplate = set(), content = set(), body_names = set(), hidden = set()
    cdef dict comment_at = {}, content_at = {}
    if at == NULL:
        raise MemoryError()
    try:
        for i in range(count):
            at[i] = starts[i]
        for match in matches:
            word, start, end = match
            word_kind = kinds[word]
            if word_kind == NAME_WORD and not (
                _at_edge(kind, data, n, start - 1) and _at_edge(kind, data, n, end)
            ):
                continue
            if word_kind == NAME_BODY and not (
                bodies and _spaced(kind, data, n, start - 1) and _spaced(kind, data, n, end)
            ):
                continue
            low, high = 0, count  # the last name starting at or before start
            while low < high:
                middle = (low + high) // 2
                if at[middle] <= start:
                    low = middle + 1
                else:
                    high = middle
            i = low - 1
            if word_kind == NAME_BODY:
                body_names.add(i)
            elif word_kind == NAME_HIDDEN:
                hidden.add(i)
            elif word_kind == NAME_COMMENT:
                positions = comment_at.get(i)
                if positions is None:
                    comment_at[i] = [start]
                else:
                    (<list> positions).append(start)
            elif word_kind == NAME_CONTENT:
                positions = content_at.get(i)
                if positions is None:
                    content_at[i] = [start]
                else:
                    (<list> positions).append(start)
                content.add(i)
            else:
                boilerplate.add(i)
        return boilerplate, content, comment_at, content_at, body_names, hidden
    finally:
        PyMem_Free(at)


# --- the text nodes a label can be ------------------------------------------------------------

cdef inline unsigned char _fold(unsigned char b) noexcept:
    return b + 32 if 65 <= b <= 90 else b


cdef bint _short(const unsigned char *s, size_t n, Py_ssize_t most) noexcept:
    """Whether the UTF-8 ``s`` has from 1 to ``most`` code points that are neither whitespace
    nor ':'. A label is compared once its whitespace is collapsed, its ':'s cut off its end
    and lower-cased, none of which drops another code point: so no text node longer than this
    is one."""
    cdef size_t i = 0
    cdef Py_ssize_t count = 0
    cdef bint counted
    while i < n:
        counted = s[i] != 58 and not _space_at(s, i, n)
        i += _width(s[i])
        if counted:
            count += 1
            if count > most:
                return False
    return count > 0


cdef inline bint _in_pairs(const unsigned char[:] pairs, unsigned int pair) noexcept:
    return pairs[pair >> 3] & (1 << (pair & 7))


cdef bint _key_at(const unsigned char *s, size_t i, size_t n,
                  const unsigned char[:] keys) noexcept:
    """Whether one of ``keys`` (lower-case bytes, each ended by a NUL) starts at ``s[i]``
    once the ASCII capitals of ``s`` are lower-cased."""
    cdef size_t j, k = 0, total = keys.shape[0]
    while k < total:  # each key in turn, from k to its NUL
        j = 0
        while keys[k + j] != 0 and i + j < n and _fold(s[i + j]) == keys[k + j]:
            j += 1
        if keys[k + j] == 0:
            return True
        while keys[k] != 0:
            k += 1
        k += 1
    return False


cdef bint _holds_fragment(const unsigned char *s, size_t n, const unsigned char[:] pairs,
                          const unsigned char[:] fragments) noexcept:
    """Whether ``s`` holds one of ``fragments`` (``_key_at``); ``pairs`` has the bit of each
    fragment's first two bytes set (bit ``p & 7`` of byte ``p >> 3`` for the pair
    ``p = b0 << 8 | b1``), which rules out most places at one test."""
    cdef size_t i
    cdef unsigned int pair
    if n < 2:
        return False
    pair = _fold(s[0])
    for i in range(n - 1):
        pair = (pair << 8 | _fold(s[i + 1])) & 0xFFFF
        if _in_pairs(pairs, pair) and _key_at(s, i, n, fragments):
            return True
    return False


cdef bint _starts_with_one(const unsigned char *s, size_t n, const unsigned char[:] pairs,
                           const unsigned char[:] keys) noexcept:
    """Whether ``s`` starts with one of ``keys`` (``_key_at``); ``pairs`` as for
    ``_holds_fragment``."""
    return n >= 2 and _in_pairs(pairs, _fold(s[0]) << 8 | _fold(s[1])) and _key_at(s, 0, n, keys)


cdef int _append_collapsed(walk_buffer *out, const unsigned char *s, size_t n) except -1:
    """Append the UTF-8 ``s`` with each run of whitespace made one space."""
    cdef size_t i = 0, kept = 0, step  # (s[kept:i]: bytes read, not yet appended)
    cdef bint space, spaced = False
    while i < n:
        step = min(_width(s[i]), n - i)
        space = _space_at(s, i, n)
        if space:
            _append(out, <const char *> s + kept, i - kept)
            if not spaced:
                _append(out, " ", 1)
            kept = i + step
        spaced = space
        i += step
    _append(out, <const char *> s + kept, n - kept)
    return 0


cdef size_t _start_of(const unsigned char *s, size_t first, size_t last, size_t length) noexcept:
    """Where the first ``length`` bytes of ``s[first:last]`` end, each run of whitespace
    counted as one byte (as it reads with its whitespace collapsed), at a character's end."""
    cdef size_t at = first, step
    cdef Py_ssize_t counted = 0
    cdef bint space, spaced = False
    while at < last and counted < <Py_ssize_t> length:
        step = _width(s[at])
        space = _space_at(s, at, last)
        if not (space and spaced):
            counted += 1 if space else step
        spaced = space
        at = min(at + step, last)
    return at


def label_candidates(LexborNode root, Py_ssize_t label_chars, Py_ssize_t box_chars,
                     const unsigned char[:] pairs, const unsigned char[:] fragments,
                     const unsigned char[:] start_pairs, const unsigned char[:] starts,
                     size_t start_bytes) -> str:
    """The text nodes of ``root``'s subtree that ``boilerplate.drop_labelled`` could act on,
    each run of their whitespace one space, joined by NUL characters: those short enough to
    be a label (``_short``: ``label_chars``), and those of ``box_chars`` characters or fewer
    (the largest box it drops) that hold one of ``fragments`` (``_holds_fragment``); and of
    the others, the first ``start_bytes`` bytes (``_start_of``) of those whose text, past its
    leading whitespace, starts with one of ``starts`` (``_starts_with_one``: a skip link's
    start). A page's text is mostly none of these, so searching them for labels costs a
    fraction of searching ``root.text()``, and finds the same ones.

    ``fragments`` and ``starts`` (and ``pairs``, ``start_pairs``: see ``_holds_fragment``)
    are parts of the sentences looked for that lower-case alike in every capitalisation
    (ASCII, or characters without case): a sentence in capitals holds its part in capitals,
    which this finds."""
    cdef walk_buffer out
    cdef walk_node *top = root.node
    cdef walk_node *node = top
    cdef walk_text *text
    cdef const unsigned char *s
    cdef size_t n, first, last, cut
    out.data, out.length, out.size = NULL, 0, 0
    try:
        while node != NULL:
            if node.local_name == TEXT:
                text = <walk_text *> node
                s, n = text.data.data, text.data.length
                cut = 0
                if s != NULL:
                    _strip(s, n, &first, &last)
                if s == NULL or first == last:
                    pass
                elif _short(s + first, last - first, label_chars) or (
                    _code_points(s, first, last) <= box_chars
                    and _holds_fragment(s + first, last - first, pairs, fragments)
                ):
                    cut = last
                elif _starts_with_one(s + first, last - first, start_pairs, starts):
                    cut = _start_of(s, first, last, start_bytes)
                if cut:
                    if out.length:
                        _append(&out, "\x00", 1)
                    _append_collapsed(&out, s + first, cut - first)
            node = _next_in(node, top)
        return PyUnicode_DecodeUTF8(out.data, out.length, "replace")
    finally:
        PyMem_Free(out.data)
