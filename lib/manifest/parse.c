/*
 * parse.c: the manifest reader's entry points: from bytes to a checked bundle.
 *
 * THE MODEL
 *
 * Reading a service bundle is three stages over one libxml2 document:
 *
 *   1. parse    libxml2 builds the tree.  The network is never used (XML_PARSE_NONET) and no
 *               DTD is loaded or validated against: the DOCTYPE's system identifier (illumos'
 *               /usr/share/lib/xml/dtd/service_bundle.dtd.1) is compared, never opened.
 *               XInclude is processed here (xinclude.c, ours: libxml2's would load DTDs), so
 *               an included bundle becomes a nested <service_bundle> and the later stages
 *               never see xi:include.
 *   2. check    check.c walks the whole tree against the format's rules (schema.c): allowed
 *               children and their order, required and known attributes, enumerated values.
 *               This is our replacement for illumos' DTD validation.
 *   3. build    build.c turns the tree into an mf_bundle_t (bundle.h), making the semantic
 *               checks illumos makes while it does so (names legal, values parse for their
 *               type, no duplicate instance, pg or property, a dependent names one FMRI...).
 *
 * The stages do not know each other: each has its header (xinclude.h, check.h, build.h) and
 * stands only on reader.h (the read in progress, mf_reader_t, and how a problem is recorded);
 * this file alone runs them in order.
 *
 * Invariants:
 *  - libxml2 never prints.  Its errors reach us through a structured error handler that is
 *    installed for the duration of one read (and the previous handler restored), and become
 *    diagnostics like ours: the file, libxml2's line, its message.
 *  - A stage runs only if the previous one recorded no error, so build.c may rely on what
 *    check.c enforces (a required attribute is there, an enumerated one has a legal value).
 *  - Every failure that is the document's fault adds at least one diagnostic and returns
 *    -EINVAL; the caller never gets a half-built bundle.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "build.h"
#include "check.h"
#include "manifest.h"
#include "reader.h"
#include "xinclude.h"

static void on_xml_error(void *userdata, xmlErrorPtr e)
{
	mf_reader_t *r = userdata;
	_cleanup_free_ char *msg = NULL;
	size_t len;

	/* Warnings (e.g. a relative namespace URI) do not make a bundle invalid. */
	if (!e || e->level == XML_ERR_WARNING || e->level == XML_ERR_NONE)
		return;
	r->n_errors++;
	if (r->diags->n >= MF_MAX_DIAGS)
		return;
	msg = strdup(e->message ? e->message : "unknown XML error");
	if (!msg) {
		r->oom = true;
		return;
	}
	len = strlen(msg);
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		msg[--len] = '\0';
	/*
	 * An error inside an included file names that file.  A parse error says what illumos'
	 * svccfg says of it (lxml_get_bundle_file(): "couldn't parse document", which scripts
	 * match), and libxml2's detail follows.
	 */
	if (mf_diags_add(r->diags, e->file ? e->file : r->file, e->line > 0 ? (unsigned)e->line : 0,
	            "%s: %s", e->domain == XML_FROM_XINCLUDE ? "XInclude" : MF_UNPARSEABLE,
	            msg) < 0)
		r->oom = true;
}

static void on_generic_error(void *ctx, const char *msg, ...)
{
	/* Everything we care about also arrives structured; this only keeps stderr quiet. */
}

typedef struct saved_handlers {
	xmlStructuredErrorFunc serror;
	void *sctx;
	xmlGenericErrorFunc gerror;
	void *gctx;
} saved_handlers_t;

static void handlers_install(mf_reader_t *r, saved_handlers_t *s)
{
	*s = (saved_handlers_t){.serror = xmlStructuredError,
	        .sctx = xmlStructuredErrorContext,
	        .gerror = xmlGenericError,
	        .gctx = xmlGenericErrorContext};
	xmlSetStructuredErrorFunc(r, on_xml_error);
	xmlSetGenericErrorFunc(NULL, on_generic_error);
}

static void handlers_restore(saved_handlers_t *s)
{
	xmlSetStructuredErrorFunc(s->sctx, s->serror);
	xmlSetGenericErrorFunc(s->gctx, s->gerror);
}

static int result(mf_reader_t *r, int ret)
{
	if (r->oom)
		return -ENOMEM;
	if (ret >= 0 && r->n_errors > 0)
		return -EINVAL;
	return ret;
}

/*
 * The document's type and root, checked in illumos' order and with its words
 * (lxml_get_bundle_file()), which scripts match; our detail follows.  The DOCTYPE is compared,
 * never loaded.
 */
static int check_prolog(mf_reader_t *r, xmlDoc *doc, xmlNode **ret)
{
	xmlNode *root = xmlDocGetRootElement(doc);
	xmlDtd *dtd = xmlGetIntSubset(doc);
	char buf[128];

	if (!dtd)
		return mf_err(r, root,
		        "document has no DTD (expected <!DOCTYPE service_bundle SYSTEM \"%s\">)",
		        MF_DTD_PATH);
	if (!dtd->SystemID || !streq((const char *)dtd->SystemID, MF_DTD_PATH))
		return mf_err(r, root,
		        "document DTD unknown; not service bundle? (its system identifier is "
		        "\"%s\", expected \"%s\")",
		        dtd->SystemID ? (const char *)dtd->SystemID : "", MF_DTD_PATH);
	if (!root)
		return mf_err(r, NULL, "document is empty");
	if (root->ns || !streq((const char *)root->name, "service_bundle"))
		return mf_err(r, root,
		        "document is not a service bundle (its root element is <%s>)",
		        mf_elem_name(root, buf, sizeof(buf)));
	if (!dtd->name || !streq((const char *)dtd->name, "service_bundle"))
		return mf_err(r, root,
		        "document DTD unknown; not service bundle? (the DOCTYPE names \"%s\", "
		        "expected \"service_bundle\")",
		        dtd->name ? (const char *)dtd->name : "");
	*ret = root;
	return 0;
}

static int read_doc(mf_reader_t *r, const void *buf, size_t len, mf_bundle_t **ret)
{
	_cleanup_(ctxtp) xmlParserCtxtPtr ctxt = NULL;
	_cleanup_(docp) xmlDocPtr doc = NULL;
	xmlNode *root = NULL;
	int k;

	if (len > INT_MAX)
		return mf_err(r, NULL, "file too large");
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return -ENOMEM;
	doc = xmlCtxtReadMemory(ctxt, buf, (int)len, r->file, NULL, MF_XML_OPTIONS);
	if (!doc || !ctxt->wellFormed) {
		if (r->n_errors == 0)
			mf_err(r, NULL, MF_UNPARSEABLE);
		return -EINVAL;
	}

	if (!(r->flags & MF_READ_NO_XINCLUDE)) {
		mf_xinclude(r, xmlDocGetRootElement(doc), 0);
		if (r->oom)
			return -ENOMEM;
		if (r->n_errors > 0)
			return -EINVAL;
	}

	k = check_prolog(r, doc, &root);
	if (k < 0)
		return k;
	k = mf_check_tree(r, root);
	if (r->oom)
		return -ENOMEM;
	if (k < 0 || r->n_errors > 0)
		return -EINVAL;
	return mf_build_bundle(r, root, ret);
}

int mf_read_memory(const void *buf, size_t len, const char *name, unsigned flags, mf_diags_t *diags,
        mf_bundle_t **ret)
{
	mf_reader_t r = {.file = name ? name : "(memory)", .flags = flags, .diags = diags};
	saved_handlers_t saved;
	mf_bundle_t *b = NULL;
	int k;

	xmlInitParser();
	handlers_install(&r, &saved);
	k = result(&r, read_doc(&r, buf, len, &b));
	handlers_restore(&saved);
	free(r.base);
	/* A document's fault always leaves a diagnostic behind (or the list is full). */
	assert(k >= 0 || k == -ENOMEM || r.n_errors > 0);
	if (k < 0) {
		mf_bundle_free(b);
		return k;
	}
	*ret = b;
	return 0;
}

int mf_read_file(const char *path, unsigned flags, mf_diags_t *diags, mf_bundle_t **ret)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = negative_errno();
		if (mf_diags_add(diags, path, 0, "cannot open: %s", strerror(-r)) < 0)
			return -ENOMEM;
		return r;
	}
	if (fstat(fd, &st) < 0)
		r = negative_errno();
	else
		r = S_ISDIR(st.st_mode) ? -EISDIR : 0;
	/* A file that opens but does not read as a document (a directory, a device): illumos'
	 * xmlReadFile() fails on it, and svccfg says it "couldn't parse document". */
	if (r < 0) {
		if (mf_diags_add(diags, path, 0, MF_UNPARSEABLE ": %s", strerror(-r)) < 0)
			return -ENOMEM;
		return r;
	}
	r = mf_read_all(fd, &buf, &len);
	if (r < 0) {
		if (r != -ENOMEM &&
		        mf_diags_add(diags, path, 0, MF_UNPARSEABLE ": %s", strerror(-r)) < 0)
			return -ENOMEM;
		return r;
	}
	return mf_read_memory(buf ? buf : "", len, path, flags, diags, ret);
}
