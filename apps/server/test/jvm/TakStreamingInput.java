import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.Security;
import java.security.cert.CertStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * TAK Server 5.7's streaming input (8089) as its trust is built, copied statement by statement
 * from TAK-Product-Center/Server, src/takserver-core/src/main/java/com/bbn/marti/service/
 * SSLConfig.java, initTrust(Tls, TrustManagerFactory), called for the input by
 * src/takserver-core/src/main/java/com/bbn/marti/nio/netty/initializers/NioNettyInitializer.java
 * (client auth REQUIRE). The <tls> element of CoreConfig.xml is described by
 * src/takserver-common/src/main/xsd/CoreConfig.xsd (enableOCSP, default false; <crl crlFile>
 * any number of times):
 *
 * <ul>
 *   <li>every trusted-certificate entry of the truststore becomes a PKIX trust anchor;
 *   <li>enableOCSP="true": setRevocationEnabled(true) and the JVM-wide security property
 *       ocsp.enable=true. No PKIXRevocationChecker is added: the JDK's default checker then asks
 *       the OCSP responder named in each certificate's AIA first (soft-fail off) and falls back
 *       to the CRLs of the CertStore when OCSP gives no answer;
 *   <li>each <crl crlFile> is read with CertificateFactory.generateCRL: ONE CRL per file, the
 *       first one in it; all of them go into one Collection CertStore, read once at start.
 * </ul>
 *
 * <p>TAK Server loads its stores with the type CoreConfig.xml names (JKS in docs/tak.md); here
 * they are loaded as PKCS12, which reads JKS files too (the JDK's keystore.type.compat).
 *
 * <p>TAK Server speaks TLS through netty's OpenSSL engine with this trust manager; here the JDK's
 * own SSLServerSocket carries it. `java TakStreamingInput.java PORT KEYSTORE.p12 TRUSTSTORE.p12
 * PASSWORD ENABLE_OCSP [CRL_FILE...]`; prints "ready" once it listens on 127.0.0.1, one line per
 * handshake ("accepted CN=..." or "refused: reason"), and exits when its standard input closes.
 * Used by test/tak-streaming-jvm.test.ts and test/tak-jvm.test.ts.
 */
public class TakStreamingInput {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    char[] password = args[3].toCharArray();
    boolean enableOcsp = Boolean.parseBoolean(args[4]);

    KeyStore self = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(args[1])) {
      self.load(in, password);
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance("SunX509");
    keyManagers.init(self, password);

    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(args[2])) {
      trust.load(in, password);
    }
    Set<TrustAnchor> trustAnchors = new HashSet<>();
    for (String alias : Collections.list(trust.aliases())) {
      KeyStore.Entry entry = trust.getEntry(alias, null);
      if (entry instanceof KeyStore.TrustedCertificateEntry) {
        Certificate cert = ((KeyStore.TrustedCertificateEntry) entry).getTrustedCertificate();
        if (cert instanceof X509Certificate) {
          trustAnchors.add(new TrustAnchor((X509Certificate) cert, null));
        }
      }
    }
    PKIXBuilderParameters pkixParameters = new PKIXBuilderParameters(trustAnchors, null);
    if (enableOcsp) {
      pkixParameters.setRevocationEnabled(true);
      Security.setProperty("ocsp.enable", "true");
    }
    Set<X509CRL> crls = new HashSet<>();
    for (int i = 5; i < args.length; i++) {
      try (InputStream in = new FileInputStream(args[i])) {
        crls.add((X509CRL) CertificateFactory.getInstance("X509").generateCRL(in));
      }
    }
    if (!crls.isEmpty()) {
      pkixParameters.addCertStore(
          CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
    }
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(new CertPathTrustManagerParameters(pkixParameters));

    // CoreConfig.xsd: <tls context="TLSv1.2"> by default.
    SSLContext context = SSLContext.getInstance("TLSv1.2");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), new SecureRandom());
    SSLServerSocket server =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(port, 16, InetAddress.getByName("127.0.0.1"));
    server.setEnabledProtocols(new String[] {"TLSv1.2"});
    server.setNeedClientAuth(true);

    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (System.in.read() != -1) {}
              } catch (Exception ignored) {
                // The parent went away either way.
              }
              System.exit(0);
            });
    watchdog.setDaemon(true);
    watchdog.start();

    System.out.println("ready");
    System.out.flush();
    while (true) {
      SSLSocket socket = (SSLSocket) server.accept();
      try (socket) {
        socket.setSoTimeout(5000);
        socket.startHandshake();
        X509Certificate client = (X509Certificate) socket.getSession().getPeerCertificates()[0];
        System.out.println("accepted " + client.getSubjectX500Principal().getName());
        System.out.flush();
        try {
          socket.getInputStream().read();
        } catch (Exception ignored) {
          // Accepted already: how the client leaves is not the verdict.
        }
      } catch (Exception e) {
        System.out.println("refused: " + e.getMessage());
      }
      System.out.flush();
    }
  }
}
