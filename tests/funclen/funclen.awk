# tests/funclen/funclen.awk MAX=N FILE... - print "FILE:LINE: NAME is N lines
# (limit MAX)" for every function body longer than MAX lines, counted from
# the line of its opening brace to the line of its closing brace, both
# included.  A function body is a brace at file level whose text before it
# (since the last ';', '}' or preprocessor line) ends in ')' - so struct
# bodies, initialisers ("= {") and enum lists are not counted.  Comments,
# string and character literals and preprocessor lines (with their '\'
# continuations) are blanked first, so braces inside them do not count.
# With LIST=1 every function is printed with its length (for the report).
function flush_fn(endline) {
	n = endline - start + 1
	if (LIST || n > MAX)
		printf "%s:%d: %s is %d lines%s\n", FILENAME, start, fname, n, (n > MAX ? " (limit " MAX ")" : "")
	if (n > MAX) over++
}
FNR == 1 { depth = 0; incomment = 0; pre = ""; cont = 0 }
{
	line = $0
	# a preprocessor line and its continuations: no braces of ours
	if (cont || (!incomment && line ~ /^[ \t]*#/)) {
		cont = (line ~ /\\$/)
		if (depth == 0) pre = ""
		next
	}
	out = ""
	i = 1; L = length(line)
	while (i <= L) {
		c = substr(line, i, 1)
		if (incomment) {
			if (c == "*" && substr(line, i + 1, 1) == "/") { incomment = 0; i += 2; continue }
			i++; continue
		}
		two = substr(line, i, 2)
		if (two == "/*") { incomment = 1; i += 2; out = out " "; continue }
		if (two == "//") break
		if (c == "\"" || c == "'") {
			q = c; i++
			while (i <= L) {
				d = substr(line, i, 1)
				if (d == "\\") { i += 2; continue }
				if (d == q) break
				i++
			}
			i++; out = out q q; continue
		}
		out = out c; i++
	}
	# walk the cleaned line for braces and statement ends
	L = length(out)
	for (i = 1; i <= L; i++) {
		c = substr(out, i, 1)
		if (c == "{") {
			if (depth == 0) {
				t = pre; gsub(/[ \t\r\n]+$/, "", t)
				isfn = (t ~ /\)$/)
				if (isfn) {
					start = FNR
					# the name: the identifier before the first '(' of the signature
					s = t; sub(/\(.*/, "", s)
					gsub(/[ \t]+$/, "", s)
					k = split(s, w, /[^A-Za-z0-9_]+/)
					fname = w[k]
				}
			}
			depth++
		} else if (c == "}") {
			depth--
			if (depth == 0) {
				if (isfn) flush_fn(FNR)
				isfn = 0; pre = ""
			}
			if (depth < 0) depth = 0
		} else if (depth == 0) {
			if (c == ";") pre = ""
			else pre = pre c
		}
	}
	if (depth == 0) pre = pre " "
}
END { exit over ? 1 : 0 }
