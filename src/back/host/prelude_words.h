
/* ---- data a kernel updates with `char` or `short` atomics: such an atomic is a
 * compare-and-swap on the aligned 32-bit word holding the element, so the device copy is
 * allocated in whole words (device buffers start on a word: every word holding one of its
 * elements lies inside it). Only programs with such atomics have this part. ---- */

/* The `key` of an entry `accshare_enter_words` made (a data entry: `key` is otherwise unused). */
static const char accshare_words_marker = 0;

/* The bytes of the buffer of `bytes` of data a narrow atomic updates: rounded up to whole
 * 32-bit words (`back::host::word_alloc_bytes`). */
static ACCSHARE_UNUSED size_t accshare_word_bytes(size_t bytes)
{
    return (bytes + 3) / 4 * 4;
}

/* `accshare_enter` for data a kernel updates with `char` or `short` atomics: a new buffer is
 * `accshare_word_bytes(bytes)` long (the data copied in at its start; never zero-copy). Data
 * already present must have the words its elements lie in on the device too (a buffer made
 * here, or one whose data ends on a word), or the program stops: never an access past a
 * buffer. */
static ACCSHARE_UNUSED accshare_dev accshare_enter_words(const void *host, size_t bytes, int copy_in, int must_be_present, const char *array, const char *origin, size_t *off)
{
    int i = accshare_find(host, bytes, off, array, origin);
    accshare_dev dev;
    if (i >= 0) {
        const accshare_entry *e = &accshare_present_table[i];
        size_t alloc = e->key == &accshare_words_marker ? accshare_word_bytes(e->bytes) : e->base + e->bytes;
        if (bytes > 0 && (e->shared || accshare_word_bytes(*off + bytes) > alloc)) {
            fprintf(stderr, "accshare: `%s` is on the device without room for the 32-bit words its char or short atomics update (put there by code that does not update it so) at %s\n", array, origin);
            exit(1);
        }
        accshare_present_table[i].refs++;
        return accshare_present_table[i].dev;
    }
    if (must_be_present) {
        fprintf(stderr, "accshare: `%s` is not present on the device (a `present` clause) at %s\n", array, origin);
        exit(1);
    }
    dev = accshare_alloc(accshare_word_bytes(bytes), array, origin);
    if (copy_in == 1) {
        accshare_write(dev, host, bytes, array, origin);
    } else if (copy_in == 2) {
        accshare_write_zeros(dev, bytes, array, origin);
    }
    accshare_push_entry(host, bytes, dev, origin)->key = &accshare_words_marker;
    *off = 0;
    return dev;
}

/* `accshare_enter_dynamic` (`enter data`) of data a kernel updates with `char` or `short`
 * atomics (`accshare_enter_words`). */
static ACCSHARE_UNUSED void accshare_enter_dynamic_words(const void *host, size_t bytes, int copy_in, const char *array, const char *origin)
{
    size_t off;
    (void)accshare_enter_words(host, bytes, copy_in, 0, array, origin, &off);
    accshare_present_table[accshare_find(host, bytes, &off, array, origin)].dyn++;
}
