// SPDX-License-Identifier: MIT
/* Strings, a JSON writer and a small JSON reader for the harness protocol. */
#include "dc_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dc_str_add(struct dc_str *s, const char *data, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		char *p;

		while (cap < s->len + n + 1)
			cap *= 2;
		p = realloc(s->p, cap);
		if (!p)
			abort();
		s->p = p;
		s->cap = cap;
	}
	memcpy(s->p + s->len, data, n);
	s->len += n;
	s->p[s->len] = '\0';
}

void dc_str_puts(struct dc_str *s, const char *z)
{
	dc_str_add(s, z, strlen(z));
}

void dc_str_vprintf(struct dc_str *s, const char *fmt, va_list ap)
{
	char small[512];
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		dc_str_add(s, small, (size_t)n);
		return;
	}
	dc_str_add(s, "", 0);
	{
		char *big = malloc((size_t)n + 1);

		if (!big)
			abort();
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		dc_str_add(s, big, (size_t)n);
		free(big);
	}
}

void dc_str_printf(struct dc_str *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dc_str_vprintf(s, fmt, ap);
	va_end(ap);
}

void dc_str_free(struct dc_str *s)
{
	free(s->p);
	s->p = NULL;
	s->len = s->cap = 0;
}

const char *dc_str_c(const struct dc_str *s)
{
	return s->p ? s->p : "";
}

double dc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- writer ---- */

/* Length of the valid UTF-8 sequence at p (max n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t need, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xE0) == 0xC0) {
		need = 2;
		cp = p[0] & 0x1F;
	} else if ((p[0] & 0xF0) == 0xE0) {
		need = 3;
		cp = p[0] & 0x0F;
	} else if ((p[0] & 0xF8) == 0xF0) {
		need = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((need == 2 && cp < 0x80) || (need == 3 && cp < 0x800) ||
	    (need == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return need;
}

void dc_json_strn(struct dc_str *s, const char *z, size_t n)
{
	const unsigned char *p = (const unsigned char *)z;
	size_t i = 0, run = 0;

	dc_str_add(s, "\"", 1);
	while (i < n) {
		unsigned char c = p[i];
		size_t l;
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			run++;
			continue;
		}
		if (c >= 0x80) {
			l = utf8_len(p + i, n - i);
			if (l) {
				i += l;
				run += l;
				continue;
			}
		}
		dc_str_add(s, (const char *)p + i - run, run);
		run = 0;
		switch (c) {
		case '"':
			dc_str_add(s, "\\\"", 2);
			break;
		case '\\':
			dc_str_add(s, "\\\\", 2);
			break;
		case '\n':
			dc_str_add(s, "\\n", 2);
			break;
		case '\t':
			dc_str_add(s, "\\t", 2);
			break;
		case '\r':
			dc_str_add(s, "\\r", 2);
			break;
		default:
			if (c < 0x20) {
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				dc_str_add(s, esc, 6);
			} else {
				dc_str_add(s, "\xEF\xBF\xBD", 3);
			}
		}
		i++;
	}
	dc_str_add(s, (const char *)p + i - run, run);
	dc_str_add(s, "\"", 1);
}

void dc_json_str(struct dc_str *s, const char *z)
{
	if (!z) {
		dc_str_puts(s, "null");
		return;
	}
	dc_json_strn(s, z, strlen(z));
}

void dc_json_key(struct dc_str *s, bool *first, const char *key)
{
	if (!*first)
		dc_str_add(s, ",", 1);
	*first = false;
	dc_json_str(s, key);
	dc_str_add(s, ":", 1);
}

/* ---- reader ---- */

struct jp {
	const char *p;
	int depth;
};

static void jp_ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static void put_utf8(struct dc_str *s, unsigned int cp)
{
	char b[4];

	if (cp < 0x80) {
		b[0] = (char)cp;
		dc_str_add(s, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		dc_str_add(s, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		dc_str_add(s, b, 3);
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		dc_str_add(s, b, 4);
	}
}

static int hex4(const char *p, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *jp_string(struct jp *j)
{
	struct dc_str s = { 0 };

	if (*j->p != '"')
		return NULL;
	j->p++;
	for (;;) {
		char c = *j->p;

		if (c == '\0' || (unsigned char)c < 0x20)
			goto bad;
		if (c == '"') {
			j->p++;
			break;
		}
		if (c != '\\') {
			dc_str_add(&s, j->p, 1);
			j->p++;
			continue;
		}
		j->p++;
		c = *j->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			dc_str_add(&s, &c, 1);
			break;
		case 'b':
			dc_str_add(&s, "\b", 1);
			break;
		case 'f':
			dc_str_add(&s, "\f", 1);
			break;
		case 'n':
			dc_str_add(&s, "\n", 1);
			break;
		case 'r':
			dc_str_add(&s, "\r", 1);
			break;
		case 't':
			dc_str_add(&s, "\t", 1);
			break;
		case 'u': {
			unsigned int cp, lo;

			if (hex4(j->p, &cp))
				goto bad;
			j->p += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && j->p[0] == '\\' &&
			    j->p[1] == 'u' && !hex4(j->p + 2, &lo) &&
			    lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
				j->p += 6;
			} else if (cp >= 0xD800 && cp <= 0xDFFF) {
				cp = 0xFFFD;
			}
			put_utf8(&s, cp);
			break;
		}
		default:
			goto bad;
		}
	}
	dc_str_add(&s, "", 0);
	return s.p;
bad:
	dc_str_free(&s);
	return NULL;
}

static int jp_value(struct jp *j, struct dc_jv *v);
static void jv_clear(struct dc_jv *v);

static int jp_push(struct dc_jv *v, struct dc_jv *kid)
{
	struct dc_jv *k = realloc(v->kids, sizeof(*k) * (size_t)(v->n + 1));

	if (!k)
		return -1;
	v->kids = k;
	v->kids[v->n++] = *kid;
	return 0;
}

static int jp_value(struct jp *j, struct dc_jv *v)
{
	memset(v, 0, sizeof(*v));
	jp_ws(j);
	if (++j->depth > 64)
		return -1;
	switch (*j->p) {
	case '{':
		v->type = DC_JOBJ;
		j->p++;
		jp_ws(j);
		if (*j->p == '}') {
			j->p++;
			break;
		}
		for (;;) {
			struct dc_jv kid;
			char *key;

			jp_ws(j);
			key = jp_string(j);
			if (!key)
				return -1;
			jp_ws(j);
			if (*j->p != ':') {
				free(key);
				return -1;
			}
			j->p++;
			if (jp_value(j, &kid)) {
				free(key);
				jv_clear(&kid);
				return -1;
			}
			kid.key = key;
			if (jp_push(v, &kid))
				return -1;
			jp_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == '}') {
				j->p++;
				break;
			}
			return -1;
		}
		break;
	case '[':
		v->type = DC_JARR;
		j->p++;
		jp_ws(j);
		if (*j->p == ']') {
			j->p++;
			break;
		}
		for (;;) {
			struct dc_jv kid;

			if (jp_value(j, &kid)) {
				jv_clear(&kid);
				return -1;
			}
			if (jp_push(v, &kid))
				return -1;
			jp_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == ']') {
				j->p++;
				break;
			}
			return -1;
		}
		break;
	case '"':
		v->type = DC_JSTR;
		v->str = jp_string(j);
		if (!v->str)
			return -1;
		break;
	case 't':
		if (strncmp(j->p, "true", 4))
			return -1;
		v->type = DC_JBOOL;
		v->num = 1;
		j->p += 4;
		break;
	case 'f':
		if (strncmp(j->p, "false", 5))
			return -1;
		v->type = DC_JBOOL;
		j->p += 5;
		break;
	case 'n':
		if (strncmp(j->p, "null", 4))
			return -1;
		v->type = DC_JNULL;
		j->p += 4;
		break;
	default: {
		char *end;

		errno = 0;
		v->num = strtod(j->p, &end);
		if (end == j->p)
			return -1;
		v->type = DC_JNUM;
		j->p = end;
	}
	}
	j->depth--;
	return 0;
}

/* Frees what v owns (not v itself). */
static void jv_clear(struct dc_jv *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		jv_clear(&v->kids[i]);
	free(v->kids);
	free(v->str);
	free(v->key);
	v->kids = NULL;
	v->str = v->key = NULL;
	v->n = 0;
}

struct dc_jv *dc_json_parse(const char *text)
{
	struct jp j = { .p = text };
	struct dc_jv *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (jp_value(&j, v)) {
		jv_clear(v);
		free(v);
		return NULL;
	}
	jp_ws(&j);
	if (*j.p) {
		jv_clear(v);
		free(v);
		return NULL;
	}
	return v;
}

void dc_json_free(struct dc_jv *v)
{
	if (!v)
		return;
	jv_clear(v);
	free(v);
}

const struct dc_jv *dc_json_get(const struct dc_jv *obj, const char *key)
{
	int i;

	if (!obj || obj->type != DC_JOBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (obj->kids[i].key && !strcmp(obj->kids[i].key, key))
			return &obj->kids[i];
	return NULL;
}

const char *dc_json_get_str(const struct dc_jv *obj, const char *key)
{
	const struct dc_jv *v = dc_json_get(obj, key);

	return v && v->type == DC_JSTR ? v->str : NULL;
}

double dc_json_get_num(const struct dc_jv *obj, const char *key, double dflt)
{
	const struct dc_jv *v = dc_json_get(obj, key);

	return v && (v->type == DC_JNUM || v->type == DC_JBOOL) ? v->num : dflt;
}

void dc_json_write(struct dc_str *s, const struct dc_jv *v)
{
	int i;

	switch (v->type) {
	case DC_JNULL:
		dc_str_puts(s, "null");
		break;
	case DC_JBOOL:
		dc_str_puts(s, v->num ? "true" : "false");
		break;
	case DC_JNUM:
		if (v->num == floor(v->num) && fabs(v->num) < 1e15)
			dc_str_printf(s, "%.0f", v->num);
		else
			dc_str_printf(s, "%.17g", v->num);
		break;
	case DC_JSTR:
		dc_json_str(s, v->str);
		break;
	case DC_JARR:
	case DC_JOBJ:
		dc_str_puts(s, v->type == DC_JARR ? "[" : "{");
		for (i = 0; i < v->n; i++) {
			if (i)
				dc_str_puts(s, ",");
			if (v->type == DC_JOBJ) {
				dc_json_str(s, v->kids[i].key);
				dc_str_puts(s, ":");
			}
			dc_json_write(s, &v->kids[i]);
		}
		dc_str_puts(s, v->type == DC_JARR ? "]" : "}");
		break;
	}
}
