"""Discussion: a thread per chapter, where signed-in readers comment and reply.

- :mod:`.threads`: what posting, editing, deleting and hiding a comment do, who is told of a
  new comment, and the rate limit;
- :mod:`.forms`: the comment's form and its limits;
- :mod:`.views`: the thread's page and its forms (plain POST and redirect, no script
  needed), and the count the chapter's page shows;
- :mod:`.feeds`: the thread's Atom feed;
- :mod:`.admin`: the comments in the admin.

The thread is a page of its own (``/discuss/<path>/``), never part of the chapter's page:
the chapter's page is kept for readers and answers every anonymous reader with the same
bytes and headers, and a comment bumps no version of the wiki (its table has no version
trigger), so no kept page is thrown away when someone comments. The chapter's page carries
a link, "Discussion", to which ``static/js/discussion.js`` adds the count it reads from
``/discuss/<path>/count.json``.
"""
