/* Diversity of the kept candidates (docs/agent.md, "Search strategies"): how different two kernel
 * sources are, so a refinement round does not spend its requests on k near-copies of one kernel. */
#ifndef KF_DIVERSITY_H
#define KF_DIVERSITY_H

/* The normalised distance of two sources in [0, 1]: one minus the Jaccard similarity of their sets
 * of token trigrams, after comments and layout are dropped (so renaming nothing, reindenting or
 * recommenting gives 0; changing a block size in one place gives a few percent; a different
 * algorithm gives most of 1). Two empty sources are at distance 0. */
double kf_source_distance(const char *a, const char *b);

#endif
