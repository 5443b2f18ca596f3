#!/usr/bin/env bash
# `make docs-check`: the documentation speaks of the product only (docs/README.md, "Writing
# rules"). Fails, naming file and line, on work-history talk, issue references, section markers,
# links outside the repository or to files or headings that do not exist, and a README over 200
# lines. Checks README.md, docs/, crates/*/README.md and examples/README.md, or the files given.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)

if (( $# )); then
    files=("$@")
else
    files=(README.md examples/README.md)
    while IFS= read -r f; do files+=("$f"); done < <(find docs crates -name '*.md' \
        \( -path 'docs/*' -o -path 'crates/*/README.md' \) -not -path '*/target/*' | sort)
fi

fail=0
report() { # file line what text
    printf '%s:%s: %s: %s\n' "$1" "$2" "$3" "$4"
    fail=1
}

# The lines of a file the word checks read: all of them, except the rule list in docs/README.md,
# which has to name the words it forbids.
lines_of() {
    if [[ $1 == docs/README.md ]]; then
        awk '/^## Writing rules/ {skip=1; next} /^## / {skip=0} !skip {print NR": "$0}' "$1"
    else
        awk '{print NR": "$0}' "$1"
    fi
}

# Work-history talk and issue references: case-insensitive.
history='\b(today|this round|earlier session|previous session|last session|this session)\b|\bissues? ?#|\bissue [0-9]+'
# Section markers: case-sensitive (BEGIN / END in capitals, as markers are written).
markers='<!-- *(BEGIN|END)\b|\bBEGIN\b'

for f in "${files[@]}"; do
    [[ -f $f ]] || continue
    while IFS= read -r hit; do
        report "$f" "${hit%%: *}" "work-history talk or issue reference" "${hit#*: }"
    done < <(lines_of "$f" | grep -iP "^[0-9]+: .*(${history})")
    while IFS= read -r hit; do
        report "$f" "${hit%%: *}" "section marker" "${hit#*: }"
    done < <(lines_of "$f" | grep -P "^[0-9]+: .*(${markers})")
    while IFS= read -r hit; do
        report "$f" "${hit%%: *}" "path outside the repository" "${hit#*: }"
    done < <(lines_of "$f" | grep -P '^[0-9]+: .*\.\./shared|shared/papers')

    # Markdown links: relative, inside the repository, to a file that exists, and to a heading
    # that exists when they name one.
    dir=$(dirname "$f")
    while IFS= read -r hit; do
        n=${hit%%:*}
        target=${hit#*:}
        case $target in
            *://* | mailto:*)
                report "$f" "$n" "link outside the repository (cite papers by arXiv number)" "$target"
                continue ;;
        esac
        path=${target%%#*}
        anchor=
        [[ $target == *#* ]] && anchor=${target#*#}
        if [[ -z $path ]]; then
            resolved=$f
        else
            resolved=$(realpath -m "$dir/$path")
            case $resolved in
                "$root" | "$root"/*) ;;
                *) report "$f" "$n" "link outside the repository" "$target"; continue ;;
            esac
            if [[ ! -e $resolved ]]; then
                report "$f" "$n" "link to a missing file" "$target"
                continue
            fi
        fi
        if [[ -n $anchor && -f $resolved && $resolved == *.md ]]; then
            # GitHub's heading ids: lower case, punctuation dropped, spaces as hyphens.
            if ! grep -E '^#{1,6} ' "$resolved" | sed -E 's/^#+ +//' \
                | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' \
                | grep -qxF -- "$anchor"; then
                report "$f" "$n" "link to a missing heading" "$target"
            fi
        fi
    done < <(grep -noP '\]\(\K[^)\s]+(?=\))' "$f")
done

lines=$(wc -l < README.md)
if (( lines > 200 )); then
    report README.md "$lines" "README over 200 lines" "$lines lines"
fi

if (( fail )); then
    echo "docs-check: failed (the rules: docs/README.md)" >&2
    exit 1
fi
echo "docs-check: ${#files[@]} files, README.md ${lines} lines: no work-history talk, issue references, markers or links outside the repository"
