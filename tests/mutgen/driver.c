/* Prints what each function of fixture.c returns at its boundaries, so that
 * a mutant switched on by DATCTS_GENMUT shows in the output. */
#include <stdio.h>

typedef unsigned int DAT_RETURN;
struct counter {
	int value;
	int seen;
};
int relational(int a, int b);
int equality(int a, int b);
int logic(int a, int b);
int condition(int a);
int constant(void);
DAT_RETURN returns(int a);
void field(struct counter *c);
int call(void);
int with_case(int a);
int with_static_assert(int a);
int switched(int a);

int main(void)
{
	struct counter c = { 0, 0 };

	field(&c);
	printf("relational %d %d %d\n", relational(1, 2), relational(2, 2), relational(3, 2));
	printf("equality %d %d\n", equality(1, 1), equality(1, 2));
	printf("logic %d %d\n", logic(1, 0), logic(1, 1));
	printf("condition %d %d %d\n", condition(0), condition(5), condition(300));
	printf("constant %d\n", constant());
	printf("returns %#x %#x\n", returns(0), returns(1));
	printf("field %d %d\n", c.value, c.seen);
	printf("call %d\n", call());
	printf("case %d %d\n", with_case(3), with_case(4));
	printf("static_assert %d\n", with_static_assert(9));
	printf("switched %d %d\n", switched(1), switched(3));
	return 0;
}
