import java.io.FileInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.naming.Context;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;
import javax.naming.directory.SearchControls;
import javax.naming.directory.SearchResult;
import javax.naming.ldap.LdapContext;

/**
 * TAK Server's group lookup for an x509 client with <auth default="ldap" x509groups="true"> and
 * an <ldap style="DS"> element, as its source does it (TAK-Product-Center/Server,
 * takserver-core com/bbn/marti/groups/X509Authenticator.java and LdapAuthenticator.java,
 * takserver-common com/bbn/marti/remote/util/CommonNameExtractor.java, read for this test):
 *
 *   1. the username is the certificate's CN, by the DNUsernameExtractorRegex (default
 *      "CN=(.*?)(?:,|$)", case-insensitive) on the subject DN;
 *   2. bind as serviceAccountDN / serviceAccountCredential (JNDI, simple, referral=throw);
 *   3. DS style: the user's DN is userstring with {username} replaced; ctx.lookup(dn), then a
 *      search "" with OBJECT_SCOPE for (objectClass=*) returning memberOf and
 *      ntUserWorkstations (getGroupInfoByDN); any NamingException gives no groups;
 *   4. keep the values whose lower case starts with groupprefix (applyGroupPrefixFilter);
 *   5. groupNameExtractorRegex (case-insensitive, group 1) turns each DN into a name;
 *   6. a name ending in readGroupSuffix (_READ) is OUT only, in writeGroupSuffix (_WRITE) IN
 *      only, any other both (groupNamesToGroups).
 *
 * Prints one line per group and direction ("Red IN", "Red OUT"), sorted; nothing for none.
 * Usage: java TakLdapLookup.java URL SERVICE_DN PASSWORD USERSTRING GROUPPREFIX REGEX CERT_PEM
 */
public class TakLdapLookup {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    String serviceDn = args[1];
    String password = args[2];
    String userString = args[3];
    String groupPrefix = args[4].toLowerCase(Locale.ENGLISH);
    String extractor = args[5];
    X509Certificate cert;
    try (FileInputStream in = new FileInputStream(args[6])) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    String username =
        firstGroup("CN=(.*?)(?:,|$)", cert.getSubjectX500Principal().getName(), null);

    Hashtable<String, Object> env = new Hashtable<>();
    env.put(Context.SECURITY_AUTHENTICATION, "simple");
    env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.ldap.LdapCtxFactory");
    env.put(Context.REFERRAL, "throw");
    env.put(Context.PROVIDER_URL, url);
    env.put(Context.SECURITY_PRINCIPAL, serviceDn);
    env.put(Context.SECURITY_CREDENTIALS, password);
    DirContext ctx = new InitialDirContext(env);

    Map<String, String> groupAttrs = new TreeMap<>();
    String userDn = userString.replace("{username}", username);
    try {
      LdapContext user = (LdapContext) ctx.lookup(userDn);
      SearchControls controls = new SearchControls();
      controls.setReturningAttributes(new String[] {"memberOf", "ntUserWorkstations"});
      controls.setSearchScope(SearchControls.OBJECT_SCOPE);
      NamingEnumeration<SearchResult> results = user.search("", "(objectClass=*)", controls);
      while (results.hasMore()) {
        NamingEnumeration<? extends Attribute> attrs = results.next().getAttributes().getAll();
        while (attrs.hasMore()) {
          Attribute attr = attrs.next();
          int count = 0;
          NamingEnumeration<?> values = attr.getAll();
          while (values.hasMore()) {
            groupAttrs.put(attr.getID() + count++, (String) values.next());
          }
        }
      }
      user.close();
    } catch (NamingException e) {
      // As getGroupInfoByDN: no such user (or no access) means no groups.
    }
    ctx.close();

    TreeSet<String> lines = new TreeSet<>();
    for (String value : groupAttrs.values()) {
      if (!value.toLowerCase(Locale.ENGLISH).startsWith(groupPrefix)) continue;
      String name = firstGroup(extractor, value, value);
      boolean read = true;
      boolean write = true;
      if (name.endsWith("_READ")) {
        write = false;
        name = name.substring(0, name.indexOf("_READ"));
      } else if (name.endsWith("_WRITE")) {
        read = false;
        name = name.substring(0, name.indexOf("_WRITE"));
      }
      if (write) lines.add(name + " IN");
      if (read) lines.add(name + " OUT");
    }
    for (String line : lines) System.out.println(line);
  }

  /** Group 1 of `regex` (case-insensitive) in `text`; `fallback` when it does not match. */
  private static String firstGroup(String regex, String text, String fallback) {
    Matcher matcher = Pattern.compile(regex, Pattern.CASE_INSENSITIVE).matcher(text);
    if (!matcher.find()) {
      if (fallback == null) throw new IllegalArgumentException("no match in " + text);
      return fallback;
    }
    return matcher.group(1);
  }
}
