package contract

// Language is one snippet and SDK language as the rest of the program knows
// it: the name sdk.languages writes, the title on tabs and tables, and the
// code fence tag docs platforms and chroma highlight it by.
type Language struct {
	Name     string
	Title    string
	FenceTag string
	// Default puts the language in sdk.languages when the sdk section
	// leaves the list out.
	Default bool
}

// LanguageTable is every snippet language, in display order: the one list.
// The loader, the JSON Schema, the renderer's titles and fence tags and the
// snippet table all read it; package snippets adds each language's template
// and run commands, and its tests fail for a language here without them.
var LanguageTable = []Language{
	{Name: "python", Title: "Python", FenceTag: "python", Default: true},
	{Name: "node", Title: "Node.js", FenceTag: "javascript", Default: true},
	{Name: "typescript", Title: "TypeScript", FenceTag: "typescript"},
	{Name: "go", Title: "Go", FenceTag: "go", Default: true},
	{Name: "java", Title: "Java", FenceTag: "java", Default: true},
	{Name: "ruby", Title: "Ruby", FenceTag: "ruby", Default: true},
	{Name: "curl", Title: "curl", FenceTag: "bash", Default: true},
}

// LanguageNamed returns the language called name.
func LanguageNamed(name string) (Language, bool) {
	for _, l := range LanguageTable {
		if l.Name == name {
			return l, true
		}
	}
	return Language{}, false
}

// Languages are the names sdk.languages accepts; DefaultLanguages the list
// it takes when the sdk section leaves it out.
var (
	Languages        = languageNames(false)
	DefaultLanguages = languageNames(true)
)

func languageNames(defaultsOnly bool) []string {
	var out []string
	for _, l := range LanguageTable {
		if l.Default || !defaultsOnly {
			out = append(out, l.Name)
		}
	}
	return out
}
