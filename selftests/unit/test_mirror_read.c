// SPDX-License-Identifier: GPL-2.0
/*
 * User-space run of the mirror read choice and the scrub repair's vote
 * (drivers/stria/mirror_read.h): each rule of the choice in its order
 * (unusable copies, resync owed, a sequential stream, the NUMA node, reads
 * in flight, ties in turn), the spread of a random reader over tied
 * copies, and the vote with two, three and four copies.
 * TAP output on stdout.
 */
#include <stdio.h>
#include <string.h>

#include "mirror_read.h"
#include "tap.h"

#define NONE	UINT64_MAX

static void copies(struct stria_mirror_copy *c, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		c[i] = (struct stria_mirror_copy){ true, STRIA_NO_NODE, 0, NONE, 800 };
}

static void test_choose(void)
{
	struct stria_mirror_copy c[4];
	u32 count[4] = { 0 }, i;
	u64 k;

	copies(c, 3);
	c[0].usable = c[1].usable = c[2].usable = false;
	tap(stria_mirror_choose(c, 3, 0, 7, false) == -1, "no usable copy: none chosen");

	copies(c, 3);
	c[0].usable = false;
	c[1].inflight = 9;
	tap(stria_mirror_choose(c, 3, 0, 7, true) == 1,
	    "resync owed: the first usable copy, however busy");

	copies(c, 3);
	c[2].last_end = 800;
	c[2].inflight = 50;
	tap(stria_mirror_choose(c, 3, STRIA_NO_NODE, 5, false) == 2,
	    "a sequential stream stays on its copy, however busy");
	c[2].usable = false;
	tap(stria_mirror_choose(c, 3, STRIA_NO_NODE, 5, false) != 2,
	    "not on a copy that became unusable");

	copies(c, 4);
	c[0].node = c[1].node = 0;
	c[2].node = c[3].node = 1;
	c[0].inflight = 5;
	c[1].inflight = 3;
	tap(stria_mirror_choose(c, 4, 0, 0, false) == 1,
	    "on the reader's node first, the one with fewer reads in flight");
	tap(stria_mirror_choose(c, 4, 1, 0, false) >= 2,
	    "a reader on the other node stays on its node");
	tap(stria_mirror_choose(c, 4, 2, 0, false) >= 2,
	    "a node with no copy: the fewest in flight anywhere");
	c[2].usable = c[3].usable = false;
	tap(stria_mirror_choose(c, 4, 1, 0, false) == 1,
	    "no usable copy on the node: the other node's, fewest in flight");

	copies(c, 3);
	for (k = 0; k < 300; k++)
		count[stria_mirror_choose(c, 3, STRIA_NO_NODE, k * 7919, false)]++;
	tap(count[0] == 100 && count[1] == 100 && count[2] == 100,
	    "ties go to the copies in turn: 300 chunks, %u/%u/%u",
	    count[0], count[1], count[2]);
	memset(count, 0, sizeof(count));
	c[1].inflight = 1;
	for (k = 0; k < 300; k++)
		count[stria_mirror_choose(c, 3, STRIA_NO_NODE, k, false)]++;
	tap(count[1] == 0 && count[0] == 150 && count[2] == 150,
	    "a busier copy is left out of the turn");
	for (i = 0; i < 3; i++)
		c[i].inflight = 4;
	c[1].last_end = 799;
	c[2].last_end = 808;
	tap(stria_mirror_choose(c, 3, STRIA_NO_NODE, 0, false) == 0,
	    "a stream that ended elsewhere is not followed");
}

static int vote(const char *agree, u32 n, const char *read, bool *maj)
{
	bool same[16] = { false }, usable[4];
	u32 i, j;

	/* agree[i] names copy i's data: same letter, same data */
	for (i = 0; i < n; i++) {
		usable[i] = read[i] == '1';
		for (j = i + 1; j < n; j++)
			same[i * n + j] = agree[i] == agree[j];
	}
	return stria_mirror_vote(same, usable, n, maj);
}

static void test_vote(void)
{
	bool maj;
	int w;

	w = vote("aab", 3, "111", &maj);
	tap((w == 0 || w == 1) && maj, "3 copies, 2 agree: theirs wins (copy %d)", w);
	w = vote("baa", 3, "111", &maj);
	tap((w == 1 || w == 2) && maj, "3 copies, the first outvoted: copy %d wins", w);
	w = vote("abc", 3, "111", &maj);
	tap(w == 0 && !maj, "3 copies all different: the first, no majority");
	w = vote("ab", 2, "11", &maj);
	tap(w == 0 && !maj, "2 copies that differ: the first wins, no majority");
	w = vote("aab", 3, "011", &maj);
	tap(w == 1 && !maj, "a copy not read has no vote: 1 against 1, the first read");
	w = vote("aabb", 4, "1111", &maj);
	tap(w == 0 && !maj, "2 against 2: the first, no majority");
	w = vote("baaa", 4, "1111", &maj);
	tap(w >= 1 && maj, "3 against 1: the three (copy %d)", w);
	w = vote("aaa", 3, "111", &maj);
	tap(w == 0 && maj, "all agree: a majority, nothing to repair");
	w = vote("ab", 2, "00", &maj);
	tap(w == -1 && !maj, "no copy read: no winner");
}

int main(void)
{
	test_choose();
	test_vote();
	return tap_exit_code();
}
