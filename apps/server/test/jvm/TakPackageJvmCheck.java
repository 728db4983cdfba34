import java.io.FileInputStream;
import java.io.InputStream;
import java.security.KeyStore;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a TAK settings package the way a JVM does (TAK Server, and the Java stack under ATAK):
 * the truststore and the member keystore as PKCS#12 with their passwords, the CRL as TAK Server
 * loads its crlFile, and the member certificate validated with PKIX, revocation checked against
 * that CRL only, at chosen dates. Prints one "name: result" line per case; run from
 * test/tak-jvm.test.ts as `java TakPackageJvmCheck.java TRUSTSTORE PASS KEYSTORE PASS CRL
 * REVOKED_KEYSTORE PASS`.
 */
public class TakPackageJvmCheck {
  private static final long DAY_MS = 24L * 60 * 60 * 1000;

  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      System.err.println("usage: TRUSTSTORE PASS KEYSTORE PASS CRL REVOKED_KEYSTORE PASS");
      System.exit(64);
    }
    KeyStore truststore = load(args[0], args[1]);
    Set<TrustAnchor> anchors = new HashSet<>();
    Set<TrustAnchor> rootOnly = new HashSet<>();
    for (String alias : Collections.list(truststore.aliases())) {
      if (!truststore.isCertificateEntry(alias)) continue;
      X509Certificate certificate = (X509Certificate) truststore.getCertificate(alias);
      anchors.add(new TrustAnchor(certificate, null));
      if (certificate.getSubjectX500Principal().equals(certificate.getIssuerX500Principal())) {
        rootOnly.add(new TrustAnchor(certificate, null));
      }
    }
    System.out.println("truststore trusted certificates: " + anchors.size());

    X509Certificate[] member = keyChain(load(args[2], args[3]), args[3]);
    System.out.println("keystore chain: " + member.length);
    System.out.println("keystore subject: " + member[0].getSubjectX500Principal().getName());

    // As TAK Server reads its <crl crlFile=...>: CertificateFactory.generateCRL on the file.
    X509CRL crl;
    try (InputStream in = new FileInputStream(args[4])) {
      crl = (X509CRL) CertificateFactory.getInstance("X.509").generateCRL(in);
    }
    System.out.println(
        "crl days: " + (crl.getNextUpdate().getTime() - crl.getThisUpdate().getTime()) / DAY_MS);

    X509Certificate[] revoked = keyChain(load(args[5], args[6]), args[6]);
    long now = System.currentTimeMillis();
    List<X509Certificate> leaf = List.of(member[0]);
    System.out.println("member now: " + validate(leaf, anchors, crl, new Date(now)));
    System.out.println(
        "member now+13d: " + validate(leaf, anchors, crl, new Date(now + 13 * DAY_MS)));
    System.out.println(
        "member now+15d: " + validate(leaf, anchors, crl, new Date(now + 15 * DAY_MS)));
    System.out.println(
        "revoked now: " + validate(List.of(revoked[0]), anchors, crl, new Date(now)));
    List<X509Certificate> throughIssuing = new ArrayList<>(List.of(member[0], member[1]));
    System.out.println(
        "member root-only now: " + validate(throughIssuing, rootOnly, crl, new Date(now)));
  }

  private static KeyStore load(String file, String password) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(file)) {
      store.load(in, password.toCharArray());
    }
    return store;
  }

  /** The chain of the one key entry, after decrypting the key with the password. */
  private static X509Certificate[] keyChain(KeyStore store, String password) throws Exception {
    for (String alias : Collections.list(store.aliases())) {
      if (!store.isKeyEntry(alias)) continue;
      KeyStore.PrivateKeyEntry entry =
          (KeyStore.PrivateKeyEntry)
              store.getEntry(alias, new KeyStore.PasswordProtection(password.toCharArray()));
      java.security.cert.Certificate[] chain = entry.getCertificateChain();
      X509Certificate[] result = new X509Certificate[chain.length];
      for (int i = 0; i < chain.length; i++) result[i] = (X509Certificate) chain[i];
      return result;
    }
    throw new IllegalStateException("no key entry");
  }

  private static String validate(
      List<X509Certificate> path, Set<TrustAnchor> anchors, X509CRL crl, Date at)
      throws Exception {
    CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
    PKIXParameters parameters = new PKIXParameters(anchors);
    parameters.setRevocationEnabled(true);
    parameters.addCertStore(
        CertStore.getInstance("Collection", new CollectionCertStoreParameters(List.of(crl))));
    parameters.setDate(at);
    try {
      CertPathValidator.getInstance("PKIX").validate(certPath, parameters);
      return "OK";
    } catch (CertPathValidatorException e) {
      return "FAIL " + e.getReason();
    }
  }
}
