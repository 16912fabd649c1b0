// G3: a GitLab merge request is a draft while its title starts with "Draft:" (or "[Draft]",
// "(Draft)", "Draft -", any case): the run opens it with the prefix and marks it ready by dropping
// it. (Made per call: a shared module's regular expressions are frozen in the workflow sandbox.)
const draftPrefix = () => /^\s*(?:\[draft\]|\(draft\)|draft:|draft\s+-)\s*/i;

export const isDraftTitle = (title: string): boolean => draftPrefix().test(title);

export const withoutDraftPrefix = (title: string): string => title.replace(draftPrefix(), '');

/** The title a draft merge request gets: "Draft: <title>" (unchanged when it has a draft prefix already). */
export const draftTitle = (title: string): string => (isDraftTitle(title) ? title : `Draft: ${title}`);
