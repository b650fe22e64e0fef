/* fuzz_render.c - libFuzzer harness for capturing and rendering hostile
 * output: control characters, escape sequences, invalid UTF-8, huge lines.
 * The input: 6 bytes of options, then stdout's bytes and stderr's, split
 * where the options say; stdout may be fed many times over (a huge line
 * from a small input). The result must be clean text (or JSON that parses
 * and whose strings are clean) within the bound. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "output/capture.h"
#include "output/render.h"
#include "output/store.h"

/* Feed as a pipe would: in uneven chunks. */
static void feed(struct pdk_capture *c, const uint8_t *d, size_t n, unsigned times, size_t step)
{
	for (unsigned t = 0; t < times; t++)
		for (size_t i = 0, k; i < n; i += k) {
			k = n - i < step ? n - i : step;
			pdk_capture_feed(c, (const char *)d + i, k);
		}
}

static void check_json(const struct pdk_render_out *r)
{
	cJSON *j = cJSON_ParseWithLength(r->text, r->len), *it;

	if (!cJSON_IsObject(j))
		fuzz_fail("JSON that does not parse", r->text, r->len);
	cJSON_ArrayForEach(it, j)
		if (cJSON_IsString(it))
			fuzz_check_clean("a JSON string that is not clean", it->valuestring,
					 strlen(it->valuestring));
	cJSON_Delete(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t bounds[] = {PDK_BOUND_MIN, 1500, 4096, PDK_BOUND_DEFAULT};
	struct pdk_store_entry *store = NULL;
	struct pdk_capture out, err;
	struct pdk_render_out r = {0};
	struct pdk_render_in in = {0};
	const char *note[1];
	char note_buf[128], store_dir[128];
	size_t split, step;
	unsigned flags, times;
	int rc;

	if (size < 6)
		return 0;
	flags = data[0];
	in.json = flags & 1;
	in.timed_out = flags & 2;
	in.stopped = flags & 4;
	in.bound = bounds[data[1] % 4] + data[1] / 4;
	in.exit_status = (int8_t)data[2];
	in.duration = data[3] / 8.0;
	step = 1 + data[3] % 61;
	times = data[4] & 0x80 ? 1 + (data[4] & 0x7f) * 8 : 1;
	split = data[5];
	data += 6;
	size -= 6;
	split = size * split / 255;
	if (flags & 8) {
		snprintf(store_dir, sizeof(store_dir), "%s/store", fuzz_dir());
		struct pdk_store_config sc = {store_dir, "fuzz", 1 << 20, 4 << 20};
		if (pdk_store_entry_new(&sc, &store) < 0)
			fuzz_fail("no store entry", "", 0);
	}
	if (pdk_capture_init(&out, 1, in.bound, store) < 0 ||
	    pdk_capture_init(&err, 2, in.bound, store) < 0)
		fuzz_fail("no capture", "", 0);
	feed(&out, data, split, times, step);
	feed(&err, data + split, size - split, 1, 4093);
	in.out = &out;
	in.err = &err;
	in.store = store;
	if (flags & 16) {
		/* a note from the hostile bytes: notes are cleaned too */
		size_t n = size - split < sizeof(note_buf) - 1 ? size - split : sizeof(note_buf) - 1;
		memcpy(note_buf, data + split, n);
		note_buf[n] = '\0';
		note[0] = note_buf;
		in.notes = in.hints = note;
		in.n_notes = in.n_hints = 1;
	}
	rc = pdk_render(&in, &r);
	if (rc < 0)
		fuzz_fail("render failed", "", 0);
	if (r.len != strlen(r.text))
		fuzz_fail("a NUL in the result", r.text, r.len);
	if (!in.n_notes && r.len > in.bound)
		fuzz_fail("a result over the bound", r.text, r.len);
	if (in.json)
		check_json(&r);
	else
		fuzz_check_clean("a result that is not clean", r.text, r.len);
	pdk_render_out_release(&r);
	pdk_capture_release(&out);
	pdk_capture_release(&err);
	pdk_store_entry_free(store);
	return 0;
}
