# cover.awk - pick a small committed corpus from a libFuzzer merge control file
# (-merge=1 -merge_control_file=F): the smallest inputs that together reach
# every coverage edge (COV) the whole corpus reaches.  Prints their paths.
# Usage: awk -f cover.awk CONTROL_FILE
NR == 1 { n = $1; next }
NR == 2 { next }
NR <= n + 2 { name[NR - 3] = $0; next }
$1 == "STARTED" { size[$2] = $3; next }
$1 == "COV" { cov[$2] = $0; next }
END {
	# inputs by size, smallest first (insertion sort on indexes)
	m = 0
	for (i = 0; i < n; i++) if (i in cov) { idx[m++] = i }
	for (a = 1; a < m; a++) {
		v = idx[a]; b = a - 1
		while (b >= 0 && size[idx[b]] + 0 > size[v] + 0) { idx[b + 1] = idx[b]; b-- }
		idx[b + 1] = v
	}
	for (a = 0; a < m; a++) {
		i = idx[a]
		k = split(cov[i], e, " ")
		new = 0
		for (j = 3; j <= k; j++) if (!(e[j] in seen)) { seen[e[j]] = 1; new = 1 }
		if (new) print name[i]
	}
}
