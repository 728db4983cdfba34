import java.io.FileInputStream;
import java.net.URI;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A member certificate validated with PKIX and revocation checked by OCSP alone, as TAK Server
 * does with enableOCSP: Java's own OCSP client (GET for a small request), the answer's signer
 * checked by the JVM. Prints "OK", or "FAIL REASON message". Run from test/tak-jvm.test.ts as
 * `java [-Djdk.security.certpath.ocspNonce=true] OcspJvmCheck.java LEAF ISSUING ROOT OCSP_URL`.
 */
public class OcspJvmCheck {
  public static void main(String[] args) throws Exception {
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    X509Certificate leaf = read(factory, args[0]);
    X509Certificate issuing = read(factory, args[1]);
    X509Certificate root = read(factory, args[2]);
    CertPath path = factory.generateCertPath(List.of(leaf, issuing));
    CertPathValidator validator = CertPathValidator.getInstance("PKIX");
    PKIXRevocationChecker checker = (PKIXRevocationChecker) validator.getRevocationChecker();
    checker.setOcspResponder(URI.create(args[3]));
    checker.setOptions(
        EnumSet.of(
            PKIXRevocationChecker.Option.ONLY_END_ENTITY,
            PKIXRevocationChecker.Option.NO_FALLBACK));
    PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(root, null)));
    parameters.addCertPathChecker(checker);
    try {
      validator.validate(path, parameters);
      System.out.println("OK");
    } catch (CertPathValidatorException e) {
      System.out.println("FAIL " + e.getReason() + " " + e.getMessage());
    }
  }

  private static X509Certificate read(CertificateFactory factory, String file) throws Exception {
    try (FileInputStream in = new FileInputStream(file)) {
      return (X509Certificate) factory.generateCertificate(in);
    }
  }
}
