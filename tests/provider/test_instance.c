// SPDX-License-Identifier: MIT
/* dat.conf instance data parsing ("sock:<addr>", "verbs:<dev>"). */
#include "tp.h"

static void ok(const char *s, enum ref_transport_kind kind, const char *arg)
{
	struct ref_instance in;
	const char *why = NULL;

	CHECK(ref_instance_parse(s, &in, &why) == 0);
	CHECK(in.kind == kind);
	CHECK(!strcmp(in.arg, arg));
}

static void bad(const char *s)
{
	struct ref_instance in;
	const char *why = NULL;

	CHECK(ref_instance_parse(s, &in, &why) == -1);
	CHECK(why && *why);
}

int main(void)
{
	char longarg[400];

	ok(NULL, REF_TRANSPORT_SOCK, "127.0.0.1");
	ok("", REF_TRANSPORT_SOCK, "127.0.0.1");
	ok("sock:127.0.0.1", REF_TRANSPORT_SOCK, "127.0.0.1");
	ok("sock:10.1.2.3", REF_TRANSPORT_SOCK, "10.1.2.3");
	ok("sock:::1", REF_TRANSPORT_SOCK, "::1");
	ok("sock:", REF_TRANSPORT_SOCK, "127.0.0.1");
	ok("verbs:rxe0", REF_TRANSPORT_VERBS, "rxe0");
	bad("verbs:");
	bad("tcp:1.2.3.4");
	bad("127.0.0.1");
	bad("sock:1.2.3.4 extra");
	bad("Sock:1.2.3.4");
	memset(longarg, 'a', sizeof(longarg));
	memcpy(longarg, "sock:", 5);
	longarg[sizeof(longarg) - 1] = '\0';
	bad(longarg);

	/* a malformed line registers nothing */
	{
		DAT_PROVIDER_INFO info = { "tp-bad", 1, 2, DAT_FALSE };

		dat_provider_init(&info, "bogus");
		CHECK(ref_provider_find("tp-bad", NULL) == NULL);
	}
	/* two names, two records, each with its own device_name */
	{
		DAT_PROVIDER_INFO a = { "tp-a", 1, 2, DAT_FALSE };
		DAT_PROVIDER_INFO b = { "tp-b", 1, 2, DAT_FALSE };
		const char *ia = NULL, *ib = NULL;
		DAT_PROVIDER *pa, *pb;

		dat_provider_init(&a, "sock:127.0.0.1");
		dat_provider_init(&b, "sock:127.0.0.2");
		pa = ref_provider_find("tp-a", &ia);
		pb = ref_provider_find("tp-b", &ib);
		CHECK(pa && pb && pa != pb);
		if (pa && pb) {
			CHECK(!strcmp(pa->device_name, "tp-a"));
			CHECK(!strcmp(pb->device_name, "tp-b"));
			CHECK(!strcmp(ia, "sock:127.0.0.1"));
			CHECK(!strcmp(ib, "sock:127.0.0.2"));
			CHECK(pa->ia_open_func == ref_provider.ia_open_func);
			CHECK(pa->srq_set_lw_func != NULL);
		}
		dat_provider_fini(&a);
		CHECK(ref_provider_find("tp-a", NULL) == NULL);
		CHECK(ref_provider_find("tp-b", NULL) != NULL);
		dat_provider_init(&a, "sock:127.0.0.3");
		CHECK(ref_provider_find("tp-a", &ia) == pa);
		CHECK(ia && !strcmp(ia, "sock:127.0.0.3"));
		dat_provider_fini(&a);
		dat_provider_fini(&b);
	}
	/* every slot of the dispatch table is filled */
	{
		void **slot = (void **)&ref_provider;
		size_t i, n = sizeof(ref_provider) / sizeof(void *);

		CHECK(n == 70);
		for (i = 2; i < n; i++)
			CHECK(slot[i] != NULL);
	}
	return tp_done("provider.instance");
}
