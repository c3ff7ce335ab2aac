/* The fixture of tests/mutgen: one function per operator of datcts.mutgen,
 * self-contained (no provider headers). */
typedef unsigned int DAT_RETURN;
#define DAT_SUCCESS 0u
#define DAT_INVALID_PARAMETER 0x40000u
#define DAT_INVALID_STATE 0x50000u

struct counter {
	int value;
	int seen;
};

static int calls;

static void touch(void)
{
	calls++;
}

int relational(int a, int b)
{
	return (a < b) + 2 * (a >= b);
}

int equality(int a, int b)
{
	return a == b;
}

int logic(int a, int b)
{
	return a && b;
}

int condition(int a)
{
	while (a > 100)
		a /= 2;
	if (a)
		return 1;
	return 0;
}

int constant(void)
{
	int n = 7;
	return n;
}

DAT_RETURN returns(int a)
{
	if (a)
		return DAT_INVALID_STATE;
	return DAT_SUCCESS;
}

void field(struct counter *c)
{
	c->value = 5;
	c->seen += 1;
}

int call(void)
{
	touch();
	return calls;
}

int with_case(int a)
{
	switch (a) {
	case 3:
		return 30;
	default:
		return 0;
	}
}

int with_static_assert(int a)
{
	_Static_assert(sizeof(int) == 4, "int is 32 bits");
	return a;
}

/* The hand-written mutant switch of the reference provider (core/mutants.c),
 * off here as it is off in a run of generated mutants. */
static int ref_mutant(const char *id)
{
	return id == (const char *)0;
}

int switched(int a)
{
	if (a > 2 && ref_mutant("x"))
		return a + 5;
	if (a == 1 || !ref_mutant("y"))
		return 1;
	return 0;
}

/* Members only hand-written mutants use (ref.h marks them so, or mut_*). */
struct with_mutant_state {
	int live;
	int mut_count;
	int shadow;	/* mutants only: read by a hand-written mutant */
};

int mutant_state(struct with_mutant_state *s)
{
	s->mut_count = 1;
	s->shadow = s->live + 1;
	if (s->shadow > 3)
		s->live = 0;
	s->live = 2;
	return s->live;
}

/* A condition over several lines, with a comment inside: its mutants'
 * copies must not move the lines after it. */
int multiline(int a, int b)
{
	if (a > 1 && // the first bound
	    b < 2)
		return 1;
	return 0;
}
